#include "plugin/controller/switch_key.hpp"
#include "tests/unit/temp_dir.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "plugin/controller/state_error.hpp"

namespace ibsdn {
namespace {

using test::TempDir;

// Writes a key file with `mode` (chmod after writing, so the umask does not interfere).
std::string key_file(const std::string& dir, const std::string& text, mode_t mode = 0600) {
  const std::string path = dir + "/switch.key";
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  EXPECT_EQ(::chmod(path.c_str(), mode), 0);
  return path;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(accepted)";
}

Config key_from_state_dir(const std::string& dir) {
  Config c;
  c.state_dir = dir;
  return c;
}

// ---- the key file's format ----

TEST(SwitchKeyText, AcceptsHexAndDecimalWithOrWithoutATrailingNewline) {
  EXPECT_EQ(parse_switch_key_text("0x5eedc0de\n", "k"), 0x5eedc0deu);
  EXPECT_EQ(parse_switch_key_text("0X5EEDC0DE", "k"), 0x5eedc0deu);
  EXPECT_EQ(parse_switch_key_text("0xffffffffffffffff\n", "k"), ~std::uint64_t{0});
  EXPECT_EQ(parse_switch_key_text("0x0000000000000001\n", "k"), 1u);
  EXPECT_EQ(parse_switch_key_text("1592639710\n", "k"), 1592639710u);
  EXPECT_EQ(parse_switch_key_text("18446744073709551615", "k"), ~std::uint64_t{0});
}

TEST(SwitchKeyText, WhatGenerationWritesParsesBack) {
  for (const std::uint64_t key : {std::uint64_t{1}, std::uint64_t{0x5eed}, ~std::uint64_t{0}}) {
    const std::string text = switch_key_text(key);
    EXPECT_EQ(text.size(), 19u) << text;  // 0x + 16 digits + newline
    EXPECT_EQ(parse_switch_key_text(text, "k"), key);
  }
  EXPECT_EQ(switch_key_text(0x5eed), "0x0000000000005eed\n");
}

struct BadKeyText {
  const char* name;
  const char* text;
  const char* says;  // the whole message after "switch.key:"
};

class SwitchKeyTextRejects : public ::testing::TestWithParam<BadKeyText> {};

TEST_P(SwitchKeyTextRejects, NamingTheFileAndLine) {
  const BadKeyText& bad = GetParam();
  const std::string what = error_of([&] { (void)parse_switch_key_text(bad.text, "switch.key"); });
  EXPECT_EQ(what, std::string("switch.key:") + bad.says);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, SwitchKeyTextRejects,
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
        BadKeyText{"DosLineEnd", "0x5eed\r\n",
                   "1:7: unexpected a carriage return (DOS line end); expected a hex digit"},
        BadKeyText{"LeadingBlank", " 0x5eed",
                   "1:1: unexpected a blank; expected one line: 0x followed by 1 to 16 hex "
                   "digits, or a decimal number"},
        BadKeyText{"TrailingBlank", "0x5eed \n", "1:7: unexpected a blank; expected a hex digit"},
        BadKeyText{"PrefixOnly", "0x\n", "1:3: no hex digits after 0x"},
        BadKeyText{"SeventeenHexDigits", "0x10000000000000000\n",
                   "1:19: more than 16 hex digits: not a 64-bit key"},
        BadKeyText{"NotAHexDigit", "0x5eeg\n", "1:6: unexpected 'g'; expected a hex digit"},
        BadKeyText{"DecimalAbove64Bits", "18446744073709551616\n",
                   "1:1: larger than 2^64-1: not a 64-bit key"},
        BadKeyText{"DecimalWithALeadingZero", "0755\n",
                   "1:1: a decimal key with a leading 0; write 0x for a hex key"},
        BadKeyText{"Negative", "-1\n",
                   "1:1: unexpected '-'; expected one line: 0x followed by 1 to 16 hex digits, "
                   "or a decimal number"},
        BadKeyText{"YamlStyle", "switch_key: 0x5eed\n",
                   "1:1: unexpected 's'; expected one line: 0x followed by 1 to 16 hex digits, "
                   "or a decimal number"},
        BadKeyText{"ControlByte", "0x5e\x01\n", "1:5: unexpected byte 0x01; expected a hex digit"},
        BadKeyText{"ZeroDecimal", "0\n",
                   "1:1: the key is 0, which means no authentication; write `switch_key: none` "
                   "in the configuration to mean that"},
        BadKeyText{"ZeroHex", "0x0000000000000000\n",
                   "1:1: the key is 0, which means no authentication; write `switch_key: none` "
                   "in the configuration to mean that"}),
    [](const ::testing::TestParamInfo<BadKeyText>& p) { return std::string(p.param.name); });

TEST(SwitchKeyText, ARefusalNeverRepeatsTheText) {
  // A key with a stray blank is still the key: it must not end up in opensm's log.
  const std::string what =
      error_of([] { (void)parse_switch_key_text("0x5eedc0de12345678 \n", "k"); });
  EXPECT_EQ(what.find("5eedc0de"), std::string::npos) << what;
  EXPECT_NE(what.find("k:1:"), std::string::npos) << what;
}

// ---- the key file ----

TEST(SwitchKeyFile, ReadsA0600File) {
  TempDir t;
  EXPECT_EQ(read_switch_key_file(key_file(t.path(), "0x5eed\n")), 0x5eedu);
  EXPECT_EQ(read_switch_key_file(key_file(t.path(), "24301", 0400)), 24301u);
}

class SwitchKeyFileRefusesMode : public ::testing::TestWithParam<mode_t> {};

TEST_P(SwitchKeyFileRefusesMode, ThatGivesGroupOrOthersAccess) {
  TempDir t;
  const mode_t mode = GetParam();
  const std::string path = key_file(t.path(), "0x5eed\n", mode);
  char octal[8];
  std::snprintf(octal, sizeof octal, "%04o", static_cast<unsigned>(mode));
  EXPECT_EQ(error_of([&] { (void)read_switch_key_file(path); }),
            path + ": mode " + octal +
                " gives group or others access, so the key may have leaked: write a new key, give "
                "it to the switches' agents, and keep the file mode 0600 (docs/security.md, "
                "\"Rotating the key\")");
}

INSTANTIATE_TEST_SUITE_P(Modes, SwitchKeyFileRefusesMode,
                         ::testing::Values(0640, 0604, 0644, 0660, 0602, 0610, 0601, 0666),
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
  EXPECT_EQ(error_of([&] { (void)read_switch_key_file(link); }),
            link +
                ": a symbolic link; a key file must be a regular file (put the key itself "
                "there)");
}

TEST(SwitchKeyFile, RefusesADirectoryAndAFifo) {
  TempDir t;
  const std::string dir = t.path() + "/switch.key";
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  EXPECT_EQ(error_of([&] { (void)read_switch_key_file(dir); }), dir + ": not a regular file");
  const std::string fifo = t.path() + "/fifo.key";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(error_of([&] { (void)read_switch_key_file(fifo); }), fifo + ": not a regular file");
}

TEST(SwitchKeyFile, RefusesAFileOfAnotherUser) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a file to another uid";
  TempDir t;
  const std::string path = key_file(t.path(), "0x5eed\n");
  ASSERT_EQ(::chown(path.c_str(), 65534, 65534), 0);
  EXPECT_EQ(error_of([&] { (void)read_switch_key_file(path); }),
            path +
                ": owned by uid 65534, but the controller runs as uid 0; a key file belongs to "
                "the controller's user");
}

TEST(SwitchKeyFile, RefusesAnUnparsableFileNamingItsLine) {
  TempDir t;
  const std::string path = key_file(t.path(), "0x5eed\n0x5eed\n");
  EXPECT_EQ(error_of([&] { (void)read_switch_key_file(path); }),
            path + ":2: more than one line; a key file holds one key on one line");
}

TEST(SwitchKeyFile, RefusesAHugeFile) {
  TempDir t;
  const std::string path = key_file(t.path(), std::string(100'000, '1'));
  EXPECT_EQ(error_of([&] { (void)read_switch_key_file(path); }),
            path + ": longer than 4096 bytes; not a key file");
}

TEST(SwitchKeyFile, ReportsAMissingFile) {
  EXPECT_EQ(error_of([] { (void)read_switch_key_file("/nonexistent/switch.key"); }),
            "/nonexistent/switch.key: No such file or directory");
}

// ---- where the key comes from ----

TEST(ResolveSwitchKey, GeneratesARandom0600KeyOnFirstStartAndReadsItLater) {
  TempDir t;
  const Config c = key_from_state_dir(t.path());
  std::vector<std::string> warnings;
  const std::uint64_t key = resolve_switch_key(c, warnings);
  EXPECT_NE(key, 0u);
  const std::string path = t.path() + "/switch.key";
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].rfind(path + ": generated a new switch key (first start)", 0), 0u)
      << warnings[0];
  struct stat st {};
  ASSERT_EQ(::lstat(path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, switch_key_text(key));
  // No temporary file stays behind.
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& f : std::filesystem::directory_iterator(t.path())) ++files;
  EXPECT_EQ(files, 1u);

  warnings.clear();
  EXPECT_EQ(resolve_switch_key(c, warnings), key);  // the second start reads the same key
  EXPECT_TRUE(warnings.empty());
}

TEST(ResolveSwitchKey, TwoStateDirectoriesGetDifferentKeys) {
  TempDir a;
  TempDir b;
  std::vector<std::string> warnings;
  EXPECT_NE(resolve_switch_key(key_from_state_dir(a.path()), warnings),
            resolve_switch_key(key_from_state_dir(b.path()), warnings));
}

TEST(ResolveSwitchKey, RefusesAStateDirectoryKeyFileOthersCouldRead_InsteadOfReplacingIt) {
  TempDir t;
  const std::string path = key_file(t.path(), "0x5eed\n", 0644);
  std::vector<std::string> warnings;
  const std::string what =
      error_of([&] { (void)resolve_switch_key(key_from_state_dir(t.path()), warnings); });
  EXPECT_EQ(what.rfind(path + ": mode 0644 gives group or others access", 0), 0u) << what;
  EXPECT_EQ(::access(path.c_str(), F_OK), 0);
  std::ifstream in(path);
  std::string text;
  std::getline(in, text);
  EXPECT_EQ(text, "0x5eed");  // untouched
}

TEST(ResolveSwitchKey, RefusesAStateDirectoryKeyFileThatIsADanglingLink) {
  TempDir t;
  std::filesystem::create_symlink(t.path() + "/elsewhere", t.path() + "/switch.key");
  std::vector<std::string> warnings;
  EXPECT_NE(error_of([&] {
              (void)resolve_switch_key(key_from_state_dir(t.path()), warnings);
            }).find("switch.key: a symbolic link"),
            std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(t.path() + "/elsewhere"));  // not written through it
}

TEST(ResolveSwitchKey, ReportsAStateDirectoryItCannotWriteTheKeyTo) {
  TempDir t;
  std::vector<std::string> warnings;
  const std::string what = error_of(
      [&] { (void)resolve_switch_key(key_from_state_dir(t.path() + "/missing"), warnings); });
  EXPECT_NE(what.find(t.path() + "/missing/switch.key: cannot create"), std::string::npos) << what;
}

TEST(ResolveSwitchKey, NoneIsZeroAndAConfiguredKeyIsUsedAsIs) {
  std::vector<std::string> warnings;
  Config c;
  c.state_dir = "/nonexistent";
  c.switch_key_source = SwitchKeySource::kNone;
  EXPECT_EQ(resolve_switch_key(c, warnings), 0u);
  c.switch_key_source = SwitchKeySource::kConfig;
  c.switch_key = 0x5eed;
  EXPECT_EQ(resolve_switch_key(c, warnings), 0x5eedu);
  c.switch_key = 0;
  EXPECT_NE(error_of([&] {
              (void)resolve_switch_key(c, warnings);
            }).find("0 disables authentication; write `switch_key: none` to mean that"),
            std::string::npos);
  EXPECT_TRUE(warnings.empty());
}

TEST(ResolveSwitchKey, ReadsANamedKeyFileButNeverCreatesIt) {
  TempDir t;
  std::vector<std::string> warnings;
  Config c = key_from_state_dir(t.path());
  c.switch_key_source = SwitchKeySource::kFile;
  c.switch_key_file = t.path() + "/other.key";
  EXPECT_EQ(error_of([&] { (void)resolve_switch_key(c, warnings); }),
            t.path() + "/other.key: No such file or directory");
  EXPECT_FALSE(std::filesystem::exists(t.path() + "/other.key"));
  EXPECT_FALSE(std::filesystem::exists(t.path() + "/switch.key"));
  std::ofstream(t.path() + "/other.key") << "0xabc\n";
  ::chmod((t.path() + "/other.key").c_str(), 0600);
  EXPECT_EQ(resolve_switch_key(c, warnings), 0xabcu);
  EXPECT_TRUE(warnings.empty());
}

TEST(GenerateSwitchKey, GivesNonZeroKeysThatDiffer) {
  const std::uint64_t a = generate_switch_key();
  const std::uint64_t b = generate_switch_key();
  EXPECT_NE(a, 0u);
  EXPECT_NE(b, 0u);
  EXPECT_NE(a, b);  // fails with probability 2^-64
}

}  // namespace
}  // namespace ibsdn
