#include "scheduler_hook/job_records.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace ibsdn::slurm_hook {

std::string write_job_record(const std::string& state_dir, std::uint64_t job,
                             const std::string& traffic) {
  if (state_dir.empty()) return {};
  if (::mkdir(state_dir.c_str(), 0750) != 0 && errno != EEXIST) {
    return "cannot create " + state_dir + ": " + std::strerror(errno);
  }
  const std::string path = state_dir + "/" + std::to_string(job);
  std::ofstream out(path, std::ios::trunc);
  out << traffic << '\n';
  out.close();
  if (!out) return "cannot write " + path;
  return {};
}

std::string remove_job_record(const std::string& state_dir, std::uint64_t job) {
  if (state_dir.empty()) return {};
  const std::string path = state_dir + "/" + std::to_string(job);
  std::error_code ec;
  std::filesystem::remove(path, ec);
  if (ec) return "cannot remove " + path + ": " + ec.message();
  return {};
}

std::map<std::uint64_t, std::string> read_job_records(const std::string& state_dir,
                                                      std::size_t max) {
  std::map<std::uint64_t, std::string> out;
  if (state_dir.empty()) return out;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(state_dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (out.size() >= max) break;
    const std::string name = it->path().filename().string();
    std::uint64_t job = 0;
    const auto [ptr, e] = std::from_chars(name.data(), name.data() + name.size(), job);
    if (name.empty() || e != std::errc() || ptr != name.data() + name.size() || job == 0) {
      continue;
    }
    std::ifstream in(it->path());
    std::string traffic;
    std::getline(in, traffic);
    out.emplace(job, traffic.substr(0, 256));
  }
  return out;
}

}  // namespace ibsdn::slurm_hook
