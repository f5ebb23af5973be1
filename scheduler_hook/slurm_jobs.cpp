#include "scheduler_hook/slurm_jobs.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>

namespace ibsdn::slurm_hook {
namespace {

using Clock = std::chrono::steady_clock;

// The child's whole output: one job id per line, then "end COUNT"; or "error TEXT". A child
// killed half way leaves no "end" line, and its partial list is not used.
[[noreturn]] void child(int fd) {
  std::string out;
  slurm_init(nullptr);
  job_info_msg_t* msg = nullptr;
  if (slurm_load_jobs(0, &msg, SHOW_ALL) != SLURM_SUCCESS) {
    out = std::string("error slurm_load_jobs: ") + slurm_strerror(slurm_get_errno()) + "\n";
  } else {
    std::size_t n = 0;
    for (std::uint32_t i = 0; i < msg->record_count; ++i) {
      const slurm_job_info_t& job = msg->job_array[i];
      const std::uint32_t base = job.job_state & JOB_STATE_BASE;
      const bool holds = base == JOB_RUNNING || base == JOB_SUSPENDED ||
                         (job.job_state & (JOB_CONFIGURING | JOB_COMPLETING)) != 0;
      if (!holds) continue;
      out += std::to_string(job.job_id) + "\n";
      ++n;
    }
    out += "end " + std::to_string(n) + "\n";
    slurm_free_job_info_msg(msg);
  }
  for (std::size_t sent = 0; sent < out.size();) {
    const ssize_t w = ::write(fd, out.data() + sent, out.size() - sent);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) ::_exit(1);
    sent += static_cast<std::size_t>(w);
  }
  ::_exit(0);
}

SlurmJobs failure(std::string why) {
  SlurmJobs r;
  r.error = std::move(why);
  return r;
}

SlurmJobs parse(const std::string& text) {
  std::istringstream in(text);
  std::set<std::uint64_t> jobs;
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with("error ")) return failure(line.substr(6));
    if (line.starts_with("end ")) {
      if (line.substr(4) != std::to_string(jobs.size())) {
        return failure("the query's job count " + line.substr(4) + " does not match its list");
      }
      SlurmJobs r;
      r.jobs = std::move(jobs);
      return r;
    }
    std::uint64_t id = 0;
    if (std::sscanf(line.c_str(), "%lu", &id) != 1) return failure("unreadable query output");
    jobs.insert(id);
  }
  return failure("the query ended without its list");
}

}  // namespace

SlurmJobs load_slurm_jobs(std::chrono::milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return failure(std::string("pipe: ") + std::strerror(errno));
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    return failure(std::string("fork: ") + std::strerror(err));
  }
  if (pid == 0) {
    ::close(fds[0]);
    child(fds[1]);
  }
  ::close(fds[1]);
  std::string text;
  bool timed_out = false;
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int n = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1 << 30)));
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) continue;  // the deadline check above ends the loop
    char buf[65536];
    const ssize_t r = ::read(fds[0], buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    text.append(buf, static_cast<std::size_t>(r));
  }
  ::close(fds[0]);
  if (timed_out) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    return failure("slurm_load_jobs gave no answer within " + std::to_string(timeout.count()) +
                   " ms (ReconcileTimeoutMs); is slurmctld up?");
  }
  return parse(text);
}

}  // namespace ibsdn::slurm_hook
