// Behind spank_checks.h: no exception leaves these functions (the caller is C inside sbatch).
#include "scheduler_hook/spank_checks.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <exception>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <utility>

#include "plugin/notice/client/notice_client.hpp"
#include "plugin/notice/request.hpp"
#include "scheduler_hook/sdn_options.hpp"

namespace {

ibsdn::slurm_hook::SdnVariables& kept() {
  static ibsdn::slurm_hook::SdnVariables v;
  return v;
}

void put(char* err, std::size_t size, const std::string& text) {
  if (err == nullptr || size == 0) return;
  const std::size_t n = std::min(text.size(), size - 1);
  std::memcpy(err, text.data(), n);
  err[n] = '\0';
}

}  // namespace

extern "C" int ibsdn_spank_option(int option, const char* value, char* err, size_t err_size) {
  using namespace ibsdn::slurm_hook;
  try {
    if (value == nullptr) {
      put(err, err_size, "a value is required");
      return -1;
    }
    switch (option) {
      case IBSDN_OPT_PATTERN:
        set_pattern_option(kept(), value);
        return 0;
      case IBSDN_OPT_HINTS:
        set_hints_option(kept(), value);
        return 0;
      case IBSDN_OPT_RANKS_PER_NODE:
        set_ranks_per_node_option(kept(), value);
        return 0;
      case IBSDN_OPT_MAPPING:
        set_mapping_option(kept(), value);
        return 0;
      default:
        put(err, err_size, "unknown option " + std::to_string(option));
        return -1;
    }
  } catch (const std::exception& e) {
    put(err, err_size, e.what());
  } catch (...) {
    put(err, err_size, "unexpected error");
  }
  return -1;
}

extern "C" int ibsdn_spank_check(char* err, size_t err_size) {
  try {
    const std::string why = ibsdn::slurm_hook::submit_problem(kept());
    if (why.empty()) return 0;
    put(err, err_size, why);
  } catch (const std::exception& e) {
    put(err, err_size, e.what());
  } catch (...) {
    put(err, err_size, "unexpected error");
  }
  return -1;
}

extern "C" int ibsdn_spank_each_variable(int (*set)(const char*, const char*, void*), void* ctx) {
  using namespace ibsdn::slurm_hook;
  try {
    const SdnVariables& v = kept();
    const std::pair<const char*, const std::optional<std::string>*> vars[] = {
        {kVarPattern, &v.pattern},
        {kVarMatrix, &v.matrix},
        {kVarMatrixSkipped, &v.matrix_skipped},
        {kVarHints, &v.hints},
        {kVarRanksPerNode, &v.ranks_per_node},
        {kVarMapping, &v.mapping}};
    for (const auto& [name, value] : vars) {
      if (!*value) continue;
      if (const int rc = set(name, (*value)->c_str(), ctx); rc != 0) return rc;
    }
    return 0;
  } catch (...) {
    return -1;
  }
}

extern "C" int ibsdn_spank_lid_offset(const char* socket_path, unsigned long long job,
                                      int timeout_ms, unsigned* offset, char* err,
                                      size_t err_size) {
  using Clock = std::chrono::steady_clock;
  try {
    if (socket_path == nullptr || offset == nullptr || timeout_ms <= 0) {
      put(err, err_size, "no socket, no result or no time given");
      return -1;
    }
    const std::string socket(socket_path);
    ibsdn::JobsQuery q;
    q.job = ibsdn::JobId(job);
    const std::string line = ibsdn::request_to_json(ibsdn::Request{q}).dump();
    const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
    // Every node of a job asks at once: a controller at its connection limit answers `busy`, and
    // is asked again after a random pause, until the deadline.
    std::minstd_rand pause(
        static_cast<std::uint32_t>(job ^ static_cast<unsigned long long>(::getpid())));
    for (;;) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) {
        put(err, err_size,
            "the controller at " + socket + " stayed busy for " + std::to_string(timeout_ms) +
                " ms");
        return -1;
      }
      const ibsdn::Reply r = ibsdn::call_controller(socket, line, left);
      if (r.status == ibsdn::Reply::Status::kControllerError && r.error_code == "busy") {
        std::this_thread::sleep_for(std::chrono::milliseconds(20 + pause() % 180));
        continue;
      }
      if (r.status != ibsdn::Reply::Status::kOk) {
        put(err, err_size,
            r.status == ibsdn::Reply::Status::kControllerError ? r.error_code + ": " + r.message
                                                               : r.message);
        return -1;
      }
      const nlohmann::json* jobs = r.response.contains("jobs") ? &r.response.at("jobs") : nullptr;
      if (jobs == nullptr || !jobs->is_array() || jobs->size() != 1 || !jobs->at(0).is_object() ||
          jobs->at(0).value("job", 0ULL) != job) {
        put(err, err_size, "the controller's answer does not list job " + std::to_string(job));
        return -1;
      }
      const nlohmann::json& o =
          jobs->at(0).contains("lid_offset") ? jobs->at(0).at("lid_offset") : nlohmann::json(0U);
      if (!o.is_number_unsigned() || o.get<unsigned long long>() > 127) {
        put(err, err_size, "the controller's lid_offset " + o.dump() + " is not 0..127");
        return -1;
      }
      *offset = o.get<unsigned>();
      return 0;
    }
  } catch (const std::exception& e) {
    put(err, err_size, std::string("asking the controller: ") + e.what());
  } catch (...) {
    put(err, err_size, "asking the controller: unknown error");
  }
  return -1;
}
