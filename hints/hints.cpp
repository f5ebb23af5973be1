// libibsdn-hints: the C API of ibsdn/hints.h over the notice protocol's client. Every entry point
// catches everything: no exception crosses the C ABI, and a failure only sets the calling
// thread's error text.
#include "ibsdn/hints.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/quote_for_message.hpp"
#include "plugin/notice/client/notice_client.hpp"
#include "plugin/notice/notice.hpp"

namespace ibsdn::hints {
namespace {

// Requests that re-route the job wait for the switches, as ibsdnctl's job phase and job hint do:
// the controller gives up on them after its job_start_timeout_ms (5 s by default).
constexpr std::chrono::milliseconds kDefaultTimeout{30'000};
// A stopped or hung opensm never makes room in the socket's backlog: give up early on it.
constexpr std::chrono::milliseconds kMaxConnectTimeout{2'000};
constexpr std::uint64_t kMaxTimeoutMs = 3'600'000;
constexpr std::string_view kTimeoutEnvVar = "IBSDN_TIMEOUT_MS";
constexpr std::string_view kJobEnvVar = "SLURM_JOB_ID";

struct Failure {
  ibsdn_status status;
  std::string message;
  std::string code;  // the controller's, with IBSDN_ERR_REFUSED
};

thread_local std::string t_error;
thread_local std::string t_error_code;

// The process's elephant pairs (ibsdn_hint_elephant adds to them) and the timeout set by
// ibsdn_set_timeout_ms, shared by the process's threads.
std::mutex g_mutex;
std::vector<RankPair> g_elephants;
std::uint64_t g_timeout_ms = 0;  // 0: IBSDN_TIMEOUT_MS, else the default

std::optional<std::string> env(std::string_view name) {
  const char* v = std::getenv(std::string(name).c_str());
  if (v == nullptr) return std::nullopt;
  return std::string(v);
}

std::uint64_t decimal(std::string_view text, std::uint64_t max, std::string_view what) {
  std::uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v, 10);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || v < 1 || v > max) {
    throw Failure{IBSDN_ERR_ENVIRONMENT,
                  std::string(what) + " is " + quote_for_message(text) + ", not a number 1.." +
                      std::to_string(max),
                  ""};
  }
  return v;
}

JobId own_job() {
  const std::optional<std::string> id = env(kJobEnvVar);
  if (!id || id->empty()) {
    throw Failure{IBSDN_ERR_ENVIRONMENT,
                  "not inside a Slurm job: $" + std::string(kJobEnvVar) + " is not set", ""};
  }
  return JobId(decimal(*id, kMaxJobId, "$" + std::string(kJobEnvVar)));
}

std::chrono::milliseconds timeout() {
  {
    const std::lock_guard lock(g_mutex);
    if (g_timeout_ms != 0) return std::chrono::milliseconds(g_timeout_ms);
  }
  const std::optional<std::string> text = env(kTimeoutEnvVar);
  if (!text || text->empty()) return kDefaultTimeout;
  return std::chrono::milliseconds(
      decimal(*text, kMaxTimeoutMs, "$" + std::string(kTimeoutEnvVar)));
}

// Sends `request` for the calling process's job and checks the answer; throws Failure.
void send(const Request& request) {
  // The controller's own parser first: what it would refuse is an argument error, said as it
  // would say it, and nothing goes over the socket.
  const std::string line =
      request_to_json(request).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (const ParsedRequest checked = parse_request(line); !checked.ok()) {
    throw Failure{IBSDN_ERR_ARGUMENT, checked.error().message, ""};
  }
  const std::optional<std::string> socket_env = env(kNoticeSocketEnvVar);
  const std::string socket =
      socket_env && !socket_env->empty() ? *socket_env : std::string(kDefaultNoticeSocket);
  CallLimits limits;
  limits.timeout = timeout();
  limits.connect_timeout = std::min(limits.timeout, kMaxConnectTimeout);
  limits.timeout_setting = "$" + std::string(kTimeoutEnvVar) + " or ibsdn_set_timeout_ms()";
  limits.connect_timeout_setting = "libibsdn-hints' bound on connecting";
  const Reply reply = call_controller(socket, line, limits);
  switch (reply.status) {
    case Reply::Status::kOk:
      return;
    case Reply::Status::kControllerError:
      throw Failure{IBSDN_ERR_REFUSED, reply.error_code + ": " + reply.message, reply.error_code};
    case Reply::Status::kNoAnswer:
      break;
  }
  throw Failure{IBSDN_ERR_NO_ANSWER, reply.message, ""};
}

// Runs `f` with the C ABI's guarantees: a status, the thread's error text, nothing thrown.
template <typename F>
int guarded(F&& f) noexcept {
  try {
    t_error.clear();
    t_error_code.clear();
    std::forward<F>(f)();
    return IBSDN_OK;
  } catch (const Failure& e) {
    try {
      t_error = e.message;
      t_error_code = e.code;
    } catch (...) {
      t_error.clear();
    }
    return e.status;
  } catch (const std::bad_alloc&) {
    return IBSDN_ERR_INTERNAL;  // t_error stays "" rather than allocating now
  } catch (const std::exception& e) {
    try {
      t_error = std::string("internal error: ") + e.what();
    } catch (...) {
    }
    return IBSDN_ERR_INTERNAL;
  } catch (...) {
    return IBSDN_ERR_INTERNAL;
  }
}

void require_text(const char* text, std::string_view what) {
  if (text == nullptr) throw Failure{IBSDN_ERR_ARGUMENT, std::string(what) + " is NULL", ""};
}

int phase(const char* name, const char* pattern, PhaseAction action) {
  return guarded([&] {
    require_text(name, "the phase name");
    PhaseRequest r;
    r.job = own_job();
    r.action = action;
    r.name = name;
    if (pattern != nullptr) {
      try {
        PatternSpec spec = PatternSpec::parse(pattern);
        spec.validate();
        r.traffic = Traffic(std::move(spec));
      } catch (const std::invalid_argument& e) {
        throw Failure{IBSDN_ERR_ARGUMENT, e.what(), ""};
      }
    }
    send(r);
  });
}

// Sends `pairs` as the job's elephants; they become the process's set once accepted.
void send_elephants(std::vector<RankPair> pairs) {
  HintRequest r;
  r.job = own_job();
  r.elephants = pairs;
  send(r);
  const std::lock_guard lock(g_mutex);
  g_elephants = std::move(pairs);
}

}  // namespace
}  // namespace ibsdn::hints

using namespace ibsdn;
using namespace ibsdn::hints;

extern "C" {

int ibsdn_phase_begin(const char* name) {
  return phase(name, nullptr, PhaseAction::kBegin);
}

int ibsdn_phase_begin_pattern(const char* name, const char* pattern) {
  if (pattern == nullptr) {
    return guarded([] { throw Failure{IBSDN_ERR_ARGUMENT, "the pattern is NULL", ""}; });
  }
  return phase(name, pattern, PhaseAction::kBegin);
}

int ibsdn_phase_end(const char* name) {
  return phase(name, nullptr, PhaseAction::kEnd);
}

int ibsdn_hint_elephant(uint32_t src_rank, uint32_t dst_rank) {
  return guarded([&] {
    std::vector<RankPair> pairs;
    {
      const std::lock_guard lock(g_mutex);
      pairs = g_elephants;
    }
    if (std::find(pairs.begin(), pairs.end(), RankPair{src_rank, dst_rank}) == pairs.end()) {
      pairs.push_back({src_rank, dst_rank});
    }
    send_elephants(std::move(pairs));
  });
}

int ibsdn_hint_elephants(const uint32_t* pairs, size_t count) {
  return guarded([&] {
    if (count > kMaxElephants) {
      throw Failure{IBSDN_ERR_ARGUMENT,
                    std::to_string(count) + " pairs, more than the " +
                        std::to_string(kMaxElephants) + " a hint may carry",
                    ""};
    }
    if (count > 0 && pairs == nullptr) throw Failure{IBSDN_ERR_ARGUMENT, "the pairs are NULL", ""};
    std::vector<RankPair> list;
    list.reserve(count);
    for (std::size_t i = 0; i < count; ++i) list.push_back({pairs[2 * i], pairs[2 * i + 1]});
    send_elephants(std::move(list));
  });
}

int ibsdn_hint_clear(void) {
  return guarded([] { send_elephants({}); });
}

int ibsdn_set_timeout_ms(unsigned int timeout_ms) {
  return guarded([&] {
    if (timeout_ms > kMaxTimeoutMs) {
      throw Failure{IBSDN_ERR_ARGUMENT,
                    "timeout " + std::to_string(timeout_ms) + " ms is beyond " +
                        std::to_string(kMaxTimeoutMs) + " ms",
                    ""};
    }
    const std::lock_guard lock(g_mutex);
    g_timeout_ms = timeout_ms;
  });
}

const char* ibsdn_last_error(void) {
  return t_error.c_str();
}

const char* ibsdn_last_error_code(void) {
  return t_error_code.c_str();
}

}  // extern "C"
