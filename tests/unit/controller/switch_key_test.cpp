#include "plugin/controller/switch_key.hpp"
#include "tests/support/temp_dir.hpp"

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

// ---- the key file, as the controller reads it ----
// The format and the file checks are mad/switch_key_file.hpp's (switch_key_file_test.cpp); the
// controller names itself, says how to go without a key, and reports a ConfigError.

TEST(ControllerKeyFile, ReadsA0600File) {
  TempDir t;
  EXPECT_EQ(read_switch_key_file(key_file(t.path(), "0x5eed\n")), 0x5eedu);
}

TEST(ControllerKeyFile, RefusesKeyZeroPointingToSwitchKeyNone) {
  TempDir t;
  const std::string path = key_file(t.path(), "0x0\n");
  try {
    (void)read_switch_key_file(path);
    ADD_FAILURE() << "accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              path +
                  ":1:1: the key is 0, which means no authentication; write `switch_key: none` in "
                  "the configuration to mean that");
    EXPECT_EQ(e.line(), 1u);
    EXPECT_EQ(e.column(), 1u);
  }
}

TEST(ControllerKeyFile, RefusesAnOpenModeAsAConfigError) {
  TempDir t;
  const std::string path = key_file(t.path(), "0x5eed\n", 0644);
  EXPECT_THROW((void)read_switch_key_file(path), ConfigError);
  EXPECT_EQ(error_of([&] {
              (void)read_switch_key_file(path);
            }).rfind(path + ": mode 0644 gives group or others access", 0),
            0u);
}

TEST(ControllerKeyFile, RefusesAFileOfAnotherUser) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a file to another uid";
  TempDir t;
  const std::string path = key_file(t.path(), "0x5eed\n");
  ASSERT_EQ(::chown(path.c_str(), 65534, 65534), 0);
  EXPECT_EQ(error_of([&] { (void)read_switch_key_file(path); }),
            path +
                ": owned by uid 65534, but the controller runs as uid 0; a key file belongs to "
                "the controller's user");
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
  EXPECT_EQ(text, mad::key_file_text(key));
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
