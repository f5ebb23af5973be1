// A stand-in for the controller's notice socket: a real Unix socket in a temporary directory,
// served by a thread, that answers each request line with a handler's line, accepts and never
// answers (a hung controller), or never accepts with its listen backlog full (a stopped one).
#pragma once

#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace ibsdn::slurm_hook::test {

class TempDir {
 public:
  TempDir() {
    std::string templ = (std::filesystem::temp_directory_path() / "ibsdn-hook-XXXXXX").string();
    if (::mkdtemp(templ.data()) != nullptr) path_ = templ;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  [[nodiscard]] std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

class FakeController {
 public:
  enum class Mode { kAnswer, kSilent, kBacklogFull };
  using Handler = std::function<std::string(const std::string& request_line)>;

  explicit FakeController(Mode mode, Handler handler = {})
      : path_(dir_.file("notice.sock")), mode_(mode), handler_(std::move(handler)) {
    listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    path_.copy(addr.sun_path, sizeof addr.sun_path - 1);
    ok_ = listen_fd_ >= 0 &&
          ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
          ::listen(listen_fd_, mode == Mode::kBacklogFull ? 0 : 16) == 0;
    if (!ok_) return;
    if (mode_ == Mode::kBacklogFull) {
      // Connections nobody accepts, until the kernel refuses more (EAGAIN): the next client
      // waits for room that never comes, like one of a stopped (SIGSTOP) opensm.
      for (int i = 0; i < 64; ++i) {
        const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
          ::close(fd);
          break;
        }
        fillers_.push_back(fd);
      }
      return;
    }
    thread_ = std::thread([this] { serve(); });
  }
  FakeController(const FakeController&) = delete;
  FakeController& operator=(const FakeController&) = delete;
  ~FakeController() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    for (const int fd : fillers_) ::close(fd);
    if (listen_fd_ >= 0) ::close(listen_fd_);
  }

  [[nodiscard]] bool ok() const { return ok_; }
  [[nodiscard]] const std::string& path() const { return path_; }
  /// The request lines received so far, without their '\n'.
  std::vector<std::string> requests() {
    const std::lock_guard lock(mutex_);
    return requests_;
  }

 private:
  bool readable(int fd) const {
    while (!stop_) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 20) > 0) return true;
    }
    return false;
  }

  void serve() {
    while (readable(listen_fd_)) {
      const int fd = ::accept(listen_fd_, nullptr, nullptr);
      if (fd < 0) continue;
      std::string in;
      char buf[4096];
      while (in.find('\n') == std::string::npos && readable(fd)) {
        const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0) break;
        in.append(buf, static_cast<std::size_t>(n));
      }
      const std::string line = in.substr(0, in.find('\n'));
      {
        const std::lock_guard lock(mutex_);
        requests_.push_back(line);
      }
      if (mode_ == Mode::kAnswer) {
        const std::string reply = handler_(line) + "\n";
        (void)::send(fd, reply.data(), reply.size(), MSG_NOSIGNAL);
      } else {
        while (readable(fd) && ::recv(fd, buf, sizeof buf, 0) > 0) {
        }
      }
      ::close(fd);
    }
  }

  TempDir dir_;
  std::string path_;
  Mode mode_;
  Handler handler_;
  int listen_fd_ = -1;
  bool ok_ = false;
  std::vector<int> fillers_;
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::vector<std::string> requests_;
  std::thread thread_;
};

}  // namespace ibsdn::slurm_hook::test
