#include "scheduler_hook/job_hook.hpp"

#include <charconv>
#include <chrono>
#include <stdexcept>

#include "common/names.hpp"
#include "common/quote_for_message.hpp"
#include "common/slurm_hostlist.hpp"
#include "plugin/notice/client/notice_client.hpp"
#include "plugin/notice/limits.hpp"
#include "routing/patterns/traffic_matrix.hpp"
#include "scheduler_hook/job_records.hpp"
#include "scheduler_hook/sdn_options.hpp"

namespace ibsdn::slurm_hook {
namespace {

using Clock = std::chrono::steady_clock;

std::string spank(const char* var) {
  return std::string("SPANK_") + var;
}

std::string required(const Environment& env, const std::string& name) {
  std::optional<std::string> v = env(name);
  if (!v || v->empty()) throw std::runtime_error(name + " is not set");
  return *v;
}

SdnVariables sdn_variables(const Environment& env) {
  SdnVariables v;
  v.pattern = env(spank(kVarPattern));
  v.matrix = env(spank(kVarMatrix));
  v.matrix_skipped = env(spank(kVarMatrixSkipped));
  v.hints = env(spank(kVarHints));
  v.ranks_per_node = env(spank(kVarRanksPerNode));
  v.mapping = env(spank(kVarMapping));
  return v;
}

bool has_traffic(const SdnVariables& v) {
  return v.pattern.has_value() || v.matrix.has_value();
}

std::string traffic_text(const Traffic& t) {
  if (const auto* spec = std::get_if<PatternSpec>(&t)) return spec->to_string();
  const auto& m = std::get<TrafficMatrix>(t);
  return "matrix (" + matrix_summary(m.flows.size(), m.skipped) + ")";
}

long long ms_since(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

std::string number_field(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it == j.end() ? std::string("?") : it->dump();
}

// The hook's verdict on a failure: fail open (0) or, with Strict=yes, fail (1).
int failed(const HookConfig& config, HookLog& log, const std::string& what) {
  if (config.strict) {
    log.error(what + "; Strict=yes: exit 1 (Slurm requeues a batch job, cancels others)");
    return kExitFailed;
  }
  log.warning(what + "; failing open: the job runs on the default routes");
  return kExitOk;
}

}  // namespace

JobId job_id_from_environment(const Environment& env) {
  const std::string text = required(env, "SLURM_JOB_ID");
  std::uint64_t id = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), id, 10);
  if (ec != std::errc() || ptr != text.data() + text.size() || id < 1 || id > kMaxJobId) {
    throw std::runtime_error("SLURM_JOB_ID " + quote_for_message(text) + " is not a job id (1.." +
                             std::to_string(kMaxJobId) + ")");
  }
  return JobId(id);
}

std::optional<JobStartRequest> job_start_from_environment(const Environment& env,
                                                          const HookConfig& config) {
  JobStartRequest r;
  r.job = job_id_from_environment(env);
  const SdnVariables vars = sdn_variables(env);
  // A job with the SPANK plugin's options: the plugin exports the job's LID offset to its tasks
  // in slurmstepd, so the controller may give it one (LMC). A default pattern's job: base LIDs.
  r.path_bits = apply_variables(vars, r);
  if (!r.path_bits) {
    if (!config.default_pattern) return std::nullopt;
    r.traffic = *config.default_pattern;
    // The job's own hints, ranks and mapping still apply to the default pattern.
    SdnVariables with_default = vars;
    with_default.pattern = config.default_pattern->to_string();
    apply_variables(with_default, r);
  }
  r.user = required(env, "SLURM_JOB_USER");
  if (const std::string why = user_name_problem(r.user); !why.empty()) {
    throw std::runtime_error("SLURM_JOB_USER " + quote_for_message(r.user) + ": " + why);
  }
  if (const std::optional<std::string> uid = env("SLURM_JOB_UID"); uid && !uid->empty()) {
    std::uint32_t v = 0;
    const auto [ptr, ec] = std::from_chars(uid->data(), uid->data() + uid->size(), v, 10);
    if (ec != std::errc() || ptr != uid->data() + uid->size() || v > kMaxUid) {
      throw std::runtime_error("SLURM_JOB_UID " + quote_for_message(*uid) + " is not a uid");
    }
    r.uid = v;
  }
  try {
    r.nodes = expand_hostlist(required(env, "SLURM_JOB_NODELIST"), kMaxJobNodes);
  } catch (const HostlistError& e) {
    throw std::runtime_error(std::string("SLURM_JOB_NODELIST: ") + e.what());
  }
  if (const std::string why = request_problem(r); !why.empty()) {
    throw std::runtime_error("the job's request is refused by the notice parser: " + why);
  }
  return r;
}

int run_prolog(const HookConfig& config, const Environment& env, HookLog& log) {
  std::optional<JobStartRequest> request;
  std::string job_text = "job ?";
  try {
    job_text = "job " + std::to_string(job_id_from_environment(env).value());
    request = job_start_from_environment(env, config);
  } catch (const std::exception& e) {
    return failed(config, log, "prolog: " + job_text + ": " + e.what());
  }
  if (!request) {
    log.debug("prolog: " + job_text + ": no --sdn-pattern and DefaultPattern=none: no notice");
    return kExitOk;
  }
  const std::string traffic = traffic_text(request->traffic);
  if (const std::string why = write_job_record(config.state_dir, request->job.value(), traffic);
      !why.empty()) {
    log.warning("prolog: " + job_text + ": " + why + " (reconcile cannot report this job)");
  }
  const Clock::time_point start = Clock::now();
  const Reply reply =
      call_controller(config.socket, request_to_json(*request).dump(), call_limits(config));
  const std::string took = " after " + std::to_string(ms_since(start)) + " ms";
  switch (reply.status) {
    case Reply::Status::kOk: {
      const nlohmann::json& j = reply.response;
      const bool degraded = j.value("degraded", false);
      std::string summary = "prolog: " + job_text + " (" + std::to_string(request->nodes.size()) +
                            " nodes, " + traffic + "): ready" + took + ": algorithm " +
                            j.value("algorithm", std::string("?")) + ", " +
                            number_field(j, "flows") + " flows, " + number_field(j, "entries") +
                            " entries" + (degraded ? ", degraded" : "");
      if (degraded) {
        // The controller routed what it could; the rest stays on the LFT. Not a failure.
        for (const auto& w : j.value("warnings", nlohmann::json::array())) {
          if (w.is_string()) summary += "; " + w.get<std::string>();
        }
        log.warning(summary);
      } else {
        log.info(summary);
      }
      return kExitOk;
    }
    case Reply::Status::kControllerError:
      return failed(config, log,
                    "prolog: " + job_text + ": the controller refused job_start" + took + ": " +
                        reply.error_code + ": " + reply.message);
    case Reply::Status::kNoAnswer:
      break;
  }
  return failed(config, log, "prolog: " + job_text + ": no answer" + took + ": " + reply.message);
}

int run_epilog(const HookConfig& config, const Environment& env, HookLog& log) {
  JobId job;
  try {
    job = job_id_from_environment(env);
  } catch (const std::exception& e) {
    return failed(config, log, std::string("epilog: ") + e.what());
  }
  const std::string job_text = "job " + std::to_string(job.value());
  // Only jobs the prolog sent job_start for: a job without routes costs no connection, so a hung
  // controller delays no epilog of an ordinary job. Reconcile ends whatever slips through.
  if (!has_traffic(sdn_variables(env)) && !config.default_pattern) {
    log.debug("epilog: " + job_text + ": no --sdn-pattern and DefaultPattern=none: no notice");
    return kExitOk;
  }
  const Clock::time_point start = Clock::now();
  const Reply reply = call_controller(config.socket, request_to_json(JobEndRequest{job}).dump(),
                                      call_limits(config));
  const std::string took = " after " + std::to_string(ms_since(start)) + " ms";
  int status = kExitOk;
  switch (reply.status) {
    case Reply::Status::kOk:
      log.info("epilog: " + job_text + ": ended" + took + ", " +
               number_field(reply.response, "entries_removed") + " entries removed");
      break;
    case Reply::Status::kControllerError:
      if (reply.error_code == "unknown_job") {
        // The prolog failed open, or reconcile was first: nothing to remove.
        log.info("epilog: " + job_text + ": the controller has no routes for it" + took);
      } else {
        status = failed(config, log,
                        "epilog: " + job_text + ": the controller refused job_end" + took + ": " +
                            reply.error_code + ": " + reply.message + " (reconcile ends it later)");
      }
      break;
    case Reply::Status::kNoAnswer:
      status = failed(config, log,
                      "epilog: " + job_text + ": no answer" + took + ": " + reply.message +
                          " (reconcile ends it later)");
      break;
  }
  if (const std::string why = remove_job_record(config.state_dir, job.value()); !why.empty()) {
    log.warning("epilog: " + job_text + ": " + why);
  }
  return status;
}

}  // namespace ibsdn::slurm_hook
