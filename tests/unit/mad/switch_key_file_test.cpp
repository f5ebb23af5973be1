// The switch key file (mad/switch_key_file.hpp), read the same way by the controller, the switch
// agent and the MAD tool: one line, 0x-hex or decimal; a regular file of its reader (or root)
// with no access for group and others; every refusal names the file (and the line and column
// when the text is wrong) and never repeats the text.
#include "mad/switch_key_file.hpp"
#include "tests/support/temp_dir.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

namespace ibsdn::mad {
namespace {

using test::TempDir;

constexpr KeyFileReader kAgent{"ibsdn-switch-agent", "run with --no-key"};

// Writes a key file with `mode` (chmod after writing, so the umask does not interfere).
std::string key_file(const std::string& dir, const std::string& text, mode_t mode = 0600,
                     const std::string& name = "switch.key") {
  const std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  EXPECT_EQ(::chmod(path.c_str(), mode), 0);
  return path;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const KeyFileError& e) {
    return e.what();
  }
  return "(accepted)";
}

// ---- the text ----

TEST(SwitchKeyFileText, AcceptsHexAndDecimalWithOrWithoutATrailingNewline) {
  EXPECT_EQ(parse_key_file_text("0x5eedc0de\n", "k", kAgent), 0x5eedc0deu);
  EXPECT_EQ(parse_key_file_text("0X5EEDC0DE", "k", kAgent), 0x5eedc0deu);
  EXPECT_EQ(parse_key_file_text("0XfFfFfFfFfFfFfFfF\n", "k", kAgent), ~std::uint64_t{0});
  EXPECT_EQ(parse_key_file_text("0x0000000000000001\n", "k", kAgent), 1u);
  EXPECT_EQ(parse_key_file_text("1592639710\n", "k", kAgent), 1592639710u);
  EXPECT_EQ(parse_key_file_text("18446744073709551615", "k", kAgent), ~std::uint64_t{0});
}

TEST(SwitchKeyFileText, WhatGenerationWritesParsesBack) {
  for (const std::uint64_t key : {std::uint64_t{1}, std::uint64_t{0x5eed}, ~std::uint64_t{0}}) {
    const std::string text = key_file_text(key);
    EXPECT_EQ(text.size(), 19u) << text;  // 0x + 16 digits + newline
    EXPECT_EQ(parse_key_file_text(text, "k", kAgent), key);
  }
  EXPECT_EQ(key_file_text(0x5eed), "0x0000000000005eed\n");
}

struct BadKeyText {
  const char* name;
  const char* text;
  const char* says;  // the whole message after "switch.key:"
};

class SwitchKeyFileTextRejects : public ::testing::TestWithParam<BadKeyText> {};

TEST_P(SwitchKeyFileTextRejects, NamingTheFileLineAndColumn) {
  const BadKeyText& bad = GetParam();
  const std::string what =
      error_of([&] { (void)parse_key_file_text(bad.text, "switch.key", kAgent); });
  EXPECT_EQ(what, std::string("switch.key:") + bad.says);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, SwitchKeyFileTextRejects,
    ::testing::Values(
        BadKeyText{"Empty", "",
                   "1: empty; expected one line: 0x followed by 1 to 16 hex digits, or a decimal "
                   "number"},
        BadKeyText{"OnlyANewline", "\n",
                   "1: empty line; expected one line: 0x followed by 1 to 16 hex digits, or a "
                   "decimal number"},
        BadKeyText{"TwoLines", "0x1\n0x2\n",
                   "2: more than one line; a key file holds one key on one line"},
        BadKeyText{"TwoNewlines", "0x1\n\n",
                   "2: more than one line; a key file holds one key on one line"},
        BadKeyText{"ABlankLineBefore", "\n0x1\n",
                   "2: more than one line; a key file holds one key on one line"},
        BadKeyText{"DosLineEnd", "0x5eed\r\n",
                   "1:7: unexpected a carriage return (DOS line end); expected a hex digit"},
        BadKeyText{"LeadingBlank", " 0x5eed",
                   "1:1: unexpected a blank; expected one line: 0x followed by 1 to 16 hex "
                   "digits, or a decimal number"},
        BadKeyText{"TrailingBlank", "0x5eed \n", "1:7: unexpected a blank; expected a hex digit"},
        BadKeyText{"AComment", "0x1 # the key\n", "1:4: unexpected a blank; expected a hex digit"},
        BadKeyText{"PrefixOnly", "0x\n", "1:3: no hex digits after 0x"},
        BadKeyText{"SeventeenHexDigits", "0x10000000000000000\n",
                   "1:19: more than 16 hex digits: not a 64-bit key"},
        BadKeyText{"NotAHexDigit", "0x5eeg\n", "1:6: unexpected 'g'; expected a hex digit"},
        BadKeyText{"HexDigitsWithout0x", "5eed\n",
                   "1:2: unexpected 'e'; expected one line: 0x followed by 1 to 16 hex digits, "
                   "or a decimal number"},
        BadKeyText{"DecimalAbove64Bits", "18446744073709551616\n",
                   "1:1: larger than 2^64-1: not a 64-bit key"},
        BadKeyText{"DecimalWithALeadingZero", "0755\n",
                   "1:1: a decimal key with a leading 0; write 0x for a hex key"},
        BadKeyText{"Negative", "-1\n",
                   "1:1: unexpected '-'; expected one line: 0x followed by 1 to 16 hex digits, "
                   "or a decimal number"},
        BadKeyText{"PlusSign", "+1\n",
                   "1:1: unexpected '+'; expected one line: 0x followed by 1 to 16 hex digits, "
                   "or a decimal number"},
        BadKeyText{"YamlStyle", "switch_key: 0x5eed\n",
                   "1:1: unexpected 's'; expected one line: 0x followed by 1 to 16 hex digits, "
                   "or a decimal number"},
        BadKeyText{"ControlByte", "0x5e\x01\n", "1:5: unexpected byte 0x01; expected a hex digit"},
        BadKeyText{"ZeroDecimal", "0\n",
                   "1:1: the key is 0, which means no authentication; run with --no-key to mean "
                   "that"},
        BadKeyText{"ZeroHex", "0x0000000000000000\n",
                   "1:1: the key is 0, which means no authentication; run with --no-key to mean "
                   "that"}),
    [](const ::testing::TestParamInfo<BadKeyText>& p) { return std::string(p.param.name); });

TEST(SwitchKeyFileText, ARefusalNeverRepeatsTheText) {
  // A key with a stray blank is still the key: it must not end up in a log.
  const std::string what =
      error_of([] { (void)parse_key_file_text("0x5eedc0de12345678 \n", "k", kAgent); });
  EXPECT_EQ(what.find("5eedc0de"), std::string::npos) << what;
  EXPECT_NE(what.find("k:1:"), std::string::npos) << what;
}

TEST(SwitchKeyFileText, TheErrorKeepsItsLocationApart) {
  try {
    (void)parse_key_file_text("0x5eeg\n", "switch.key", kAgent);
    ADD_FAILURE() << "accepted";
  } catch (const KeyFileError& e) {
    EXPECT_EQ(e.source(), "switch.key");
    EXPECT_EQ(e.line(), 1u);
    EXPECT_EQ(e.column(), 6u);
    EXPECT_EQ(e.reason(), "unexpected 'g'; expected a hex digit");
  }
}

// ---- the file ----

TEST(SwitchKeyFile, ReadsA0600OrA0400File) {
  TempDir t;
  EXPECT_EQ(read_key_file(key_file(t.path(), "0x5eed\n"), kAgent), 0x5eedu);
  EXPECT_EQ(read_key_file(key_file(t.path(), "24301", 0400), kAgent), 24301u);
}

class SwitchKeyFileRefusesMode : public ::testing::TestWithParam<mode_t> {};

TEST_P(SwitchKeyFileRefusesMode, ThatGivesGroupOrOthersAccess) {
  TempDir t;
  const mode_t mode = GetParam();
  const std::string path = key_file(t.path(), "0x5eed\n", mode);
  char octal[8];
  std::snprintf(octal, sizeof octal, "%04o", static_cast<unsigned>(mode));
  EXPECT_EQ(error_of([&] { (void)read_key_file(path, kAgent); }),
            path + ": mode " + octal +
                " gives group or others access, so the key may have leaked: write a new key, give "
                "it to the switches' agents, and keep the file mode 0600 (docs/security.md, "
                "\"Rotating the key\")");
}

INSTANTIATE_TEST_SUITE_P(Modes, SwitchKeyFileRefusesMode,
                         ::testing::Values(0640, 0604, 0644, 0660, 0620, 0602, 0610, 0601, 0666,
                                           0744),
                         [](const ::testing::TestParamInfo<mode_t>& p) {
                           char name[16];
                           std::snprintf(name, sizeof name, "Mode%04o",
                                         static_cast<unsigned>(p.param));
                           return std::string(name);
                         });

TEST(SwitchKeyFile, RefusesASymbolicLinkEvenToAGoodKeyFile) {
  TempDir t;
  const std::string target = key_file(t.path(), "0x5eed\n");
  const std::string link = t.path() + "/link.key";
  std::filesystem::create_symlink(target, link);
  EXPECT_EQ(error_of([&] { (void)read_key_file(link, kAgent); }),
            link +
                ": a symbolic link; a key file must be a regular file (put the key itself "
                "there)");
}

TEST(SwitchKeyFile, RefusesADirectoryAndAFifoWithoutWaitingForAWriter) {
  TempDir t;
  const std::string dir = t.path() + "/switch.key";
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  EXPECT_EQ(error_of([&] { (void)read_key_file(dir, kAgent); }), dir + ": not a regular file");
  const std::string fifo = t.path() + "/fifo.key";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(error_of([&] { (void)read_key_file(fifo, kAgent); }), fifo + ": not a regular file");
}

TEST(SwitchKeyFile, RefusesAFileOfAnotherUserNamingTheReader) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a file to another uid";
  TempDir t;
  const std::string path = key_file(t.path(), "0x5eed\n");
  ASSERT_EQ(::chown(path.c_str(), 65534, 65534), 0);
  EXPECT_EQ(error_of([&] { (void)read_key_file(path, kAgent); }),
            path +
                ": owned by uid 65534, but ibsdn-switch-agent runs as uid 0; a key file belongs "
                "to ibsdn-switch-agent's user");
}

TEST(SwitchKeyFile, RefusesAnUnparsableFileNamingItsLine) {
  TempDir t;
  const std::string path = key_file(t.path(), "0x5eed\n0x5eed\n");
  EXPECT_EQ(error_of([&] { (void)read_key_file(path, kAgent); }),
            path + ":2: more than one line; a key file holds one key on one line");
}

TEST(SwitchKeyFile, RefusesAHugeFile) {
  TempDir t;
  const std::string path = key_file(t.path(), std::string(100'000, '1'));
  EXPECT_EQ(error_of([&] { (void)read_key_file(path, kAgent); }),
            path + ": longer than 4096 bytes; not a key file");
}

TEST(SwitchKeyFile, ReportsAMissingFile) {
  EXPECT_EQ(error_of([] { (void)read_key_file("/nonexistent/switch.key", kAgent); }),
            "/nonexistent/switch.key: No such file or directory");
}

}  // namespace
}  // namespace ibsdn::mad
