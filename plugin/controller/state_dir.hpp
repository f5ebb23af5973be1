// The state directory as files, beside what SQLite keeps inside the database: the permissions of
// the directory and its files, the lock that keeps a second controller out, and atomic writes of
// small files (the store's creation marker, the switch key).
//
// Permission policy (docs/operations.md, "State directory"): the directory and everything in it
// belong to the controller's effective uid.
// - Whatever another user could have written is refused: a directory or file writable by group
//   or others, or owned by another uid. Its contents cannot be trusted any more; an operator looks
//   at it and fixes the mode.
// - Group/other read or search bits on the directory or one of its files are removed, with a
//   warning: nothing there can have been changed, and the exposure stops.
// The switch key is stricter (switch_key.hpp): a key that others could read may have leaked.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>
#include <vector>

namespace ibsdn::state_dir {

/// Permission bits as chmod takes them: "0644".
std::string mode_text(mode_t mode);

/// Makes `dir` ready for the controller's files: creates it 0700 when missing (its parent must
/// exist), applies the policy above to an existing one, and refuses a directory on a read-only
/// file system or one this process cannot write. Tightened modes are reported in `warnings`.
/// Throws StateError.
void prepare(const std::string& dir, std::vector<std::string>& warnings);

/// Applies the policy above to an existing file of the state directory: it must be a regular file
/// (not a symbolic link) owned by this process's effective uid and not writable by group or
/// others; group/other read bits are removed (reported in `warnings`). Returns false when `path`
/// does not exist. Throws StateError.
bool check_file(const std::string& path, std::vector<std::string>& warnings);

/// Throws StateError unless `path` is missing or a regular file of mode 0600 or stricter: the
/// check after SQLite has created its -wal and -shm files.
void require_private(const std::string& path);

/// An exclusive flock() on a lock file (0600, holding the owner's pid) for the object's lifetime.
/// flock() locks belong to the open file description, so a second Lock conflicts even inside the
/// same process, and the kernel drops the lock when the process dies: no stale locks.
class Lock {
 public:
  /// Throws StateError "state directory D is in use by process PID ..." when another Lock holds
  /// it, or naming the lock file when it cannot be opened or locked. The lock file gets
  /// check_file()'s policy (tightened modes go to `warnings`).
  static Lock acquire(const std::string& dir, const std::string& name,
                      std::vector<std::string>& warnings);

  Lock() = default;
  Lock(Lock&& other) noexcept;
  Lock& operator=(Lock&& other) noexcept;
  Lock(const Lock&) = delete;
  Lock& operator=(const Lock&) = delete;
  ~Lock();

 private:
  explicit Lock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

enum class Replace : bool { kNo, kYes };

/// Writes `content` to DIR/NAME so that a crash leaves the old file or the new one, never a part
/// of it: a temporary file (0600) in DIR, fsync, rename, fsync of DIR. With Replace::kNo an
/// existing DIR/NAME is kept and false is returned. Throws StateError.
bool write_atomically(const std::string& dir, const std::string& name, std::string_view content,
                      Replace replace);

/// fsync() of a directory: a file created or renamed in it then survives a power loss.
void sync_dir(const std::string& dir);

}  // namespace ibsdn::state_dir
