// ibsdn-slurm-hook: PrologSlurmctld / EpilogSlurmctld / reconcile. slurmctld runs the program
// without arguments and without PATH, so the mode comes from SLURM_SCRIPT_CONTEXT
// (prolog_slurmctld, epilog_slurmctld) unless given on the command line.
#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "scheduler_hook/hook_config.hpp"
#include "scheduler_hook/hook_log.hpp"
#include "scheduler_hook/job_hook.hpp"
#include "scheduler_hook/reconcile.hpp"
#include "scheduler_hook/slurm_jobs.hpp"

#ifndef IBSDN_VERSION
#define IBSDN_VERSION "unknown"
#endif

namespace {

using namespace ibsdn::slurm_hook;

constexpr int kExitUsage = 2;

std::optional<std::string> getenv_string(const std::string& name) {
  const char* v = std::getenv(name.c_str());
  if (v == nullptr) return std::nullopt;
  return std::string(v);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "ibsdn-slurm-hook: tells the ibsdn SDN controller about Slurm jobs.\n"
      "As PrologSlurmctld it sends job_start and waits for the job's flow entries, as\n"
      "EpilogSlurmctld it sends job_end; 'reconcile' (systemd timer) ends controller jobs\n"
      "Slurm no longer runs. Failures are logged (syslog, LogFile) and fail open: exit 0,\n"
      "the job runs on the default routes; with Strict=yes the hook exits 1.",
      "ibsdn-slurm-hook"};
  app.set_version_flag("--version", IBSDN_VERSION);
  std::string mode;
  std::string config_path = kDefaultConfigPath;
  std::vector<std::string> sets;
  bool strict = false;
  app.add_option("mode", mode,
                 "prolog, epilog or reconcile; default: from SLURM_SCRIPT_CONTEXT "
                 "(prolog_slurmctld, epilog_slurmctld)")
      ->check(CLI::IsMember({"prolog", "epilog", "reconcile"}));
  CLI::Option* config_opt =
      app.add_option("-c,--config", config_path, "configuration file")->capture_default_str();
  std::string keys;
  for (const std::string& k : hook_config_keys()) keys += (keys.empty() ? "" : ", ") + k;
  // One KEY=VALUE per --set (repeatable), so that `--set K=V prolog` keeps its mode.
  app.add_option("--set", sets, "KEY=VALUE, overriding the file; repeatable (keys: " + keys + ")")
      ->allow_extra_args(false);
  app.add_flag("--strict", strict, "same as --set Strict=yes");
  app.footer(
      "Exit codes: 0 success, or a failure with Strict=no (logged); 1 a failure with Strict=yes,\n"
      "or a reconcile that could not finish; 2 usage or configuration error (prolog and epilog:\n"
      "only with --strict, otherwise they fail open).");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  if (mode.empty()) {
    const std::string context = getenv_string("SLURM_SCRIPT_CONTEXT").value_or("");
    if (context == "prolog_slurmctld") {
      mode = "prolog";
    } else if (context == "epilog_slurmctld") {
      mode = "epilog";
    } else {
      std::cerr << "ibsdn-slurm-hook: no mode given and SLURM_SCRIPT_CONTEXT is "
                << (context.empty() ? std::string("not set") : "'" + context + "'")
                << " (expected prolog_slurmctld or epilog_slurmctld)\n";
      return kExitUsage;
    }
  }
  const bool job_path = mode != "reconcile";
  HookLog log(true, "", &std::cerr);
  HookConfig config;
  try {
    config = load_hook_config(config_path, config_opt->count() == 0);
    for (const std::string& s : sets) {
      const auto eq = s.find('=');
      if (eq == std::string::npos) throw HookConfigError("--set " + s + ": expected KEY=VALUE");
      set_hook_config_key(config, s.substr(0, eq), s.substr(eq + 1));
    }
    if (strict) config.strict = true;
  } catch (const HookConfigError& e) {
    log.error(std::string(e.what()));
    // A typo in the file must not stop every job: prolog and epilog fail open unless the command
    // line itself asked for strictness.
    if (job_path && !strict) {
      log.warning(mode + ": configuration unusable; failing open");
      return kExitOk;
    }
    return kExitUsage;
  }
  log.set_log_file(config.log_file);
  if (mode == "prolog") return run_prolog(config, getenv_string, log);
  if (mode == "epilog") return run_epilog(config, getenv_string, log);
  return run_reconcile(
      config, [&config] { return load_slurm_jobs(config.slurm_timeout); }, log);
}
