#include "sim_backend/run/subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace ibsdn {
namespace {

using Clock = std::chrono::steady_clock;

/// Closes a descriptor once.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  [[nodiscard]] int get() const { return fd_; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

/// In the child between fork and exec only async-signal-safe calls: report errno on `fd`, leave.
[[noreturn]] void child_fail(int fd) {
  const int err = errno;
  [[maybe_unused]] const ssize_t w = ::write(fd, &err, sizeof err);
  ::_exit(127);
}

bool is_executable_file(const std::filesystem::path& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

long long ms_left(Clock::time_point deadline) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
}

}  // namespace

std::string ProgramResult::describe() const {
  if (!started) return "cannot run: " + error;
  if (timed_out) return "no answer within the time allowed; killed";
  if (signal != 0) return "killed by signal " + std::to_string(signal);
  return "exit status " + std::to_string(exit_code);
}

std::optional<std::filesystem::path> find_program(std::string_view name) {
  if (name.empty()) return std::nullopt;
  if (name.find('/') != std::string_view::npos) {
    const std::filesystem::path p(name);
    if (is_executable_file(p)) return p;
    return std::nullopt;
  }
  const char* path = std::getenv("PATH");
  // POSIX leaves an unset PATH implementation-defined; glibc's execvp then searches these.
  const std::string dirs = path != nullptr ? path : "/bin:/usr/bin";
  std::size_t begin = 0;
  while (begin <= dirs.size()) {
    const std::size_t end = std::min(dirs.find(':', begin), dirs.size());
    // An empty entry means the current directory (POSIX).
    const std::string dir = end == begin ? "." : dirs.substr(begin, end - begin);
    const std::filesystem::path p = std::filesystem::path(dir) / std::string(name);
    if (is_executable_file(p)) return p;
    begin = end + 1;
  }
  return std::nullopt;
}

ProgramResult run_program(const std::filesystem::path& program,
                          const std::vector<std::string>& args, const std::filesystem::path& cwd,
                          std::chrono::milliseconds timeout, std::size_t stderr_cap) {
  ProgramResult result;
  const Clock::time_point deadline = Clock::now() + timeout;
  // Everything the child needs is built before fork: it may only make async-signal-safe calls.
  const std::string prog = program.string();
  const std::string dir = cwd.string();
  std::vector<std::string> owned;
  owned.reserve(args.size() + 1);
  owned.push_back(prog);
  owned.insert(owned.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : owned) argv.push_back(a.data());
  argv.push_back(nullptr);

  int err_pipe[2];   // the child's stderr
  int exec_pipe[2];  // errno of a failed chdir / exec; closed by a successful exec (O_CLOEXEC)
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    result.error = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  Fd err_read(err_pipe[0]);
  Fd err_write(err_pipe[1]);
  if (::pipe2(exec_pipe, O_CLOEXEC) != 0) {
    result.error = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  Fd exec_read(exec_pipe[0]);
  Fd exec_write(exec_pipe[1]);

  const pid_t pid = ::fork();
  if (pid < 0) {
    result.error = std::string("fork: ") + std::strerror(errno);
    return result;
  }
  if (pid == 0) {
    if (::chdir(dir.c_str()) != 0) child_fail(exec_pipe[1]);
    const int null = ::open("/dev/null", O_RDWR);
    if (null < 0) child_fail(exec_pipe[1]);
    if (::dup2(null, STDIN_FILENO) < 0 || ::dup2(null, STDOUT_FILENO) < 0 ||
        ::dup2(err_pipe[1], STDERR_FILENO) < 0) {
      child_fail(exec_pipe[1]);
    }
    ::execv(prog.c_str(), argv.data());
    child_fail(exec_pipe[1]);
  }
  err_write.reset();
  exec_write.reset();

  int exec_errno = 0;
  ssize_t got = 0;
  do {
    got = ::read(exec_read.get(), &exec_errno, sizeof exec_errno);
  } while (got < 0 && errno == EINTR);
  if (got == static_cast<ssize_t>(sizeof exec_errno)) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    result.error = "'" + prog + "' in '" + dir + "': " + std::strerror(exec_errno);
    return result;
  }
  result.started = true;

  // Read stderr to its end (keeping the first stderr_cap bytes, draining the rest so that the
  // child never blocks on a full pipe), then wait for the exit; both bounded by the deadline.
  for (;;) {
    const long long left = ms_left(deadline);
    if (left <= 0) {
      result.timed_out = true;
      break;
    }
    pollfd p{err_read.get(), POLLIN, 0};
    const int n = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1 << 30)));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) continue;  // the deadline check ends the loop
    char buf[4096];
    const ssize_t r = ::read(err_read.get(), buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    const std::size_t keep =
        std::min(static_cast<std::size_t>(r), stderr_cap - result.err_output.size());
    result.err_output.append(buf, keep);
  }
  int status = 0;
  while (!result.timed_out) {
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) break;
    if (ms_left(deadline) <= 0) {
      result.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (result.timed_out) {
    ::kill(pid, SIGKILL);
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return result;
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

}  // namespace ibsdn
