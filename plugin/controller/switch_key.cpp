#include "plugin/controller/switch_key.hpp"

#include <sys/random.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "plugin/controller/state_dir.hpp"
#include "plugin/controller/state_error.hpp"

namespace ibsdn {
namespace {

// getrandom() returning 0 eight times in a row means a broken kernel, not bad luck (2^-512).
constexpr int kMaxZeroDraws = 8;

}  // namespace

std::uint64_t read_switch_key_file(const std::string& path) {
  try {
    return mad::read_key_file(path, kControllerKeyReader);
  } catch (const mad::KeyFileError& e) {
    throw ConfigError(e.source(), e.line(), e.column(), e.reason());
  }
}

std::uint64_t generate_switch_key() {
  for (int draw = 0; draw < kMaxZeroDraws; ++draw) {
    std::uint64_t key = 0;
    ssize_t n = -1;
    do {
      n = ::getrandom(&key, sizeof key, 0);
    } while (n < 0 && errno == EINTR);
    if (n != static_cast<ssize_t>(sizeof key)) {
      throw StateError(std::string("switch key: getrandom: ") +
                       (n < 0 ? std::strerror(errno) : "short read"));
    }
    if (key != 0) return key;
  }
  throw StateError("switch key: getrandom gave only zeros");
}

std::uint64_t resolve_switch_key(const Config& config, std::vector<std::string>& warnings) {
  switch (config.switch_key_source) {
    case SwitchKeySource::kNone:
      return 0;
    case SwitchKeySource::kConfig:
      if (config.switch_key == 0) {
        throw ConfigError("switch_key", 0, 0,
                          "0 disables authentication; write `switch_key: none` to mean that");
      }
      return config.switch_key;
    case SwitchKeySource::kFile:
      if (!config.switch_key_file) {
        throw ConfigError("switch_key_file", 0, 0, "no file named");
      }
      return read_switch_key_file(*config.switch_key_file);
    case SwitchKeySource::kStateDirFile:
      break;
  }
  const std::string path = config.state_dir + "/" + kSwitchKeyFileName;
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 || errno != ENOENT) return read_switch_key_file(path);
  const std::uint64_t key = generate_switch_key();
  if (!state_dir::write_atomically(config.state_dir, kSwitchKeyFileName, mad::key_file_text(key),
                                   state_dir::Replace::kNo)) {
    return read_switch_key_file(path);  // another process wrote one first: that one counts
  }
  warnings.push_back(path +
                     ": generated a new switch key (first start). Switches' agents refuse this "
                     "controller's flow changes until they use it: give each a 0600 copy "
                     "(ibsdn-switch-agent --key-file)");
  return key;
}

}  // namespace ibsdn
