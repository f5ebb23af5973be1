// The key file of ibsdn-switch-agent / ibsdn-madtool --key-file: one line, 0x-hex or decimal,
// a regular file of its owner with no access for group and others; every refusal names the file
// (and the line when the contents are wrong).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "mad/key_file.hpp"

namespace ibsdn::mad {
namespace {

namespace fs = std::filesystem;

class KeyFile : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "ibsdn-key-file-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }

  /// A file with `contents` and `mode` in the test's directory.
  std::string write(const std::string& name, const std::string& contents, mode_t mode = 0600) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << contents;
    EXPECT_EQ(::chmod(path.c_str(), mode), 0);
    return path;
  }

  /// The message read_key_file() refuses `path` with ("" when it does not).
  static std::string refusal(const std::string& path) {
    try {
      read_key_file(path);
    } catch (const KeyFileError& e) {
      return e.what();
    }
    return "";
  }

  fs::path dir_;
};

TEST_F(KeyFile, HexAndDecimal_WithOrWithoutNewline_Read) {
  EXPECT_EQ(read_key_file(write("a", "0x5eedc0de\n")), 0x5eedc0deu);
  EXPECT_EQ(read_key_file(write("b", "0x5EEDC0DE")), 0x5eedc0deu);
  EXPECT_EQ(read_key_file(write("c", "0XfFfFfFfFfFfFfFfF\n")), ~std::uint64_t{0});
  EXPECT_EQ(read_key_file(write("d", "24301\n")), 24301u);
  EXPECT_EQ(read_key_file(write("e", "18446744073709551615")), ~std::uint64_t{0});
  EXPECT_EQ(read_key_file(write("f", "0x0000000000000001\n", 0400)), 1u);  // read-only is fine
}

TEST_F(KeyFile, BadSyntax_IsRefusedNamingFileAndLine) {
  struct Case {
    const char* name;
    const char* contents;
    const char* where;  // expected "PATH:LINE:" suffix
  };
  const Case cases[] = {
      {"empty", "", ":1: empty"},
      {"only a newline", "\n", ":1: empty"},
      {"0x without digits", "0x\n", ":1: '0x'"},
      {"not hex", "0x5eedg\n", ":1: '0x5eedg'"},
      {"hex digits without 0x", "5eed\n", ":1: '5eed'"},
      {"17 hex digits", "0x10000000000000000\n", ":1:"},
      {"decimal beyond 64 bits", "18446744073709551616\n", ":1:"},
      {"negative", "-1\n", ":1: '-1'"},
      {"plus sign", "+1\n", ":1: '+1'"},
      {"leading space", " 0x1\n", ":1: ' 0x1'"},
      {"trailing space", "0x1 \n", ":1: '0x1 '"},
      {"CRLF", "0x1\r\n", ":1: '0x1?'"},
      {"two keys", "0x1\n0x2\n", ":2: a key file holds one line"},
      {"a blank line after", "0x1\n\n", ":2: a key file holds one line"},
      {"a blank line before", "\n0x1\n", ":1: empty"},
      {"a comment", "0x1 # the key\n", ":1:"},
      {"key 0", "0x0\n", ":1: key 0 means no authentication"},
      {"decimal 0", "0\n", ":1: key 0 means no authentication"},
  };
  int i = 0;
  for (const Case& c : cases) {
    const std::string path = write("bad" + std::to_string(i++), c.contents);
    const std::string why = refusal(path);
    EXPECT_EQ(why.rfind(path + c.where, 0), 0u) << c.name << ": " << why;
  }
  const std::string longer = write("long", std::string(100, '1'));
  EXPECT_NE(refusal(longer).find(longer + ": longer than 64 bytes"), std::string::npos);
}

TEST_F(KeyFile, GroupOrWorldAccess_IsRefusedLikeSsh) {
  for (mode_t mode : {0644, 0640, 0604, 0660, 0620, 0602, 0610, 0601, 0700 | 0044}) {
    const std::string path = write("key", "0x5eed\n", mode);
    const std::string why = refusal(path);
    EXPECT_EQ(why.rfind(path + ": permissions ", 0), 0u) << std::oct << mode << ": " << why;
    EXPECT_NE(why.find("chmod 600 " + path), std::string::npos) << why;
  }
  EXPECT_EQ(read_key_file(write("key", "0x5eed\n", 0600)), 0x5eedu);
}

TEST_F(KeyFile, SymlinkDirectoryFifoAndMissingFile_AreRefused) {
  const std::string good = write("good", "0x5eed\n");
  const std::string link = (dir_ / "link").string();
  ASSERT_EQ(::symlink(good.c_str(), link.c_str()), 0);
  EXPECT_EQ(refusal(link), link + ": is a symbolic link; give the key file itself");

  const std::string sub = (dir_ / "sub").string();
  ASSERT_EQ(::mkdir(sub.c_str(), 0700), 0);
  EXPECT_EQ(refusal(sub), sub + ": is a directory, not a regular file");

  // Refused without waiting for a writer.
  const std::string fifo = (dir_ / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(refusal(fifo), fifo + ": is a FIFO, not a regular file");

  const std::string missing = (dir_ / "missing").string();
  EXPECT_EQ(refusal(missing), missing + ": cannot open: No such file or directory");
}

TEST_F(KeyFile, AnotherUsersFile_IsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a file to another user";
  const std::string path = write("theirs", "0x5eed\n");
  ASSERT_EQ(::chown(path.c_str(), 65534, 65534), 0);  // nobody
  EXPECT_EQ(refusal(path).rfind(path + ": is owned by uid 65534, neither this user", 0), 0u)
      << refusal(path);
}

TEST(KeyText, ParsesExactlyTheKeyFileSpelling) {
  EXPECT_EQ(parse_key_text("0x2a"), 0x2au);
  EXPECT_EQ(parse_key_text("42"), 42u);
  EXPECT_EQ(parse_key_text("0"), 0u);  // a valid spelling; read_key_file() refuses the value
  EXPECT_FALSE(parse_key_text("").has_value());
  EXPECT_FALSE(parse_key_text("0x").has_value());
  EXPECT_FALSE(parse_key_text("2a").has_value());
  EXPECT_FALSE(parse_key_text("0x2a ").has_value());
  EXPECT_FALSE(parse_key_text("0x00000000000000001").has_value());  // 17 digits
}

}  // namespace
}  // namespace ibsdn::mad
