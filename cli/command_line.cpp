#include "cli/command_line.hpp"

#include <CLI/CLI.hpp>
#include <charconv>
#include <iterator>
#include <stdexcept>
#include <utility>
#include <vector>

#include "flowtable/guid_text.hpp"
#include "routing/patterns/traffic_matrix.hpp"
#ifdef IBSDN_HAVE_SLURM_HOSTLIST
#include "common/slurm_hostlist.hpp"
#endif

#ifndef IBSDN_VERSION
#define IBSDN_VERSION "unknown"
#endif

namespace ibsdn::cli {
namespace {

constexpr const char* kExitCodes =
    "Exit codes:\n"
    "  0  success\n"
    "  1  the controller answered with an error (stderr: 'ibsdnctl: CODE: message'),\n"
    "     or audit found differences\n"
    "  2  usage error: unknown command or option, missing or malformed value\n"
    "  3  no answer: cannot connect, timeout, connection closed, malformed response";

// A value that cannot become a request: reported as "ibsdnctl: OPTION: what".
struct UsageError {
  std::string option;  // "--nodes", "SRC"; empty when no single option is at fault
  std::string what;
};

std::uint32_t parse_rank(std::string_view text, const std::string& option, std::string_view whole) {
  std::uint32_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v, 10);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) {
    throw UsageError{
        option, "'" + std::string(whole) + "' is not SRC:DST (two rank numbers 0..4294967295)"};
  }
  return v;
}

std::vector<RankPair> parse_elephants(const std::vector<std::string>& texts) {
  std::vector<RankPair> out;
  for (const std::string& t : texts) {
    const auto colon = t.find(':');
    if (colon == std::string::npos) {
      throw UsageError{"--elephant", "'" + t + "' is not SRC:DST (two rank numbers 0..4294967295)"};
    }
    out.push_back({parse_rank(std::string_view(t).substr(0, colon), "--elephant", t),
                   parse_rank(std::string_view(t).substr(colon + 1), "--elephant", t)});
  }
  return out;
}

// Each --nodes value is a Slurm host list ("node[01-16,20],gpu3"; plain "a,b" is one too), expanded
// in order by libslurm after common/slurm_hostlist.hpp checked it: libslurm itself accepts
// malformed lists ("bad[1-" becomes "bad]"). Hosts repeated across values are the protocol
// check's to report (at /nodes/N).
std::vector<std::string> expand_nodes(const std::vector<std::string>& values) {
  std::vector<std::string> hosts;
  for (const std::string& value : values) {
#ifdef IBSDN_HAVE_SLURM_HOSTLIST
    try {
      std::vector<std::string> more = expand_hostlist(value, kMaxJobNodes);
      if (more.size() > kMaxJobNodes - hosts.size()) {
        throw UsageError{"--nodes", "more than " + std::to_string(kMaxJobNodes) + " hosts"};
      }
      hosts.insert(hosts.end(), std::make_move_iterator(more.begin()),
                   std::make_move_iterator(more.end()));
    } catch (const HostlistError& e) {
      throw UsageError{"--nodes", e.what()};
    }
#else
    if (value.find('[') != std::string::npos) {
      throw UsageError{"--nodes", "'" + value +
                                      "': this ibsdnctl was built without libslurm and does not "
                                      "expand host ranges; pass the names, e.g. --nodes "
                                      "\"$(scontrol show hostnames '" +
                                      value + "' | paste -sd,)\""};
    }
    std::size_t start = 0;
    for (;;) {
      const std::size_t comma = value.find(',', start);
      hosts.push_back(value.substr(start, comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
#endif
  }
  return hosts;
}

// A decimal number is a LID, "0x..." a GUID, anything else a node name (what opensm's and
// ibnetdiscover's tools accept for a switch).
SwitchRef parse_switch(const std::string& text) {
  const bool decimal = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  if (decimal) {
    std::uint64_t lid = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), lid, 10);
    if (ec != std::errc() || lid < 1 || lid > 0xBFFF) {
      throw UsageError{"--switch", "LID " + text + " is out of the unicast range 1..49151"};
    }
    return Lid(static_cast<std::uint16_t>(lid));
  }
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    const std::optional<Guid> guid = parse_guid(text);
    if (!guid) {
      throw UsageError{"--switch", "'" + text + "' is not a GUID (0x and 1 to 16 hex digits)"};
    }
    return *guid;
  }
  return text;
}

PatternSpec parse_pattern(const std::string& text) {
  PatternSpec spec;
  try {
    spec = PatternSpec::parse(text);
    spec.validate();
  } catch (const std::invalid_argument& e) {
    throw UsageError{"--pattern", e.what()};
  }
  if (spec.name == "matrix") {
    throw UsageError{"--pattern",
                     "the matrix pattern would make the controller read a file on its own host; "
                     "give the file to --matrix instead (ibsdnctl reads it and sends the entries)"};
  }
  return spec;
}

// The pairs the file skips travel in the request's "matrix_skipped": the controller reports them
// with the job.
TrafficMatrix read_matrix(const std::string& path) {
  try {
    return read_traffic_matrix(path, std::nullopt);
  } catch (const std::invalid_argument& e) {
    throw UsageError{"--matrix", e.what()};  // "FILE:LINE: what" or "FILE: cannot open ..."
  }
}

// The option a JSON pointer of the request came from: "/nodes/3" -> "--nodes".
std::string option_for(std::string_view at, const Request& request) {
  if (at.starts_with('/')) at.remove_prefix(1);
  const std::string key(at.substr(0, at.find('/')));
  if (key.empty()) return {};
  if (key == "elephants") return "--elephant";
  if (key == "src") return "SRC";
  if (key == "dst") return "DST";
  if (key == "name") {
    const auto* phase = std::get_if<PhaseRequest>(&request);
    return phase && phase->action == PhaseAction::kEnd ? "--end" : "--begin";
  }
  std::string option = "--" + key;
  for (char& c : option) {
    if (c == '_') c = '-';
  }
  return option;
}

class Parser {
 public:
  Parser();
  CommandLine parse(std::span<const std::string> args, const Environment& env, std::ostream& out,
                    std::ostream& err);

 private:
  struct Values {
    std::string socket;
    std::uint64_t timeout_ms = 0;
    bool json = false;
    std::uint64_t job = 0;
    std::string switch_ref;
    bool from_switch = false;
    bool path_bits = false;
    bool repair = false;
    std::uint32_t top = 0;
    std::string src;
    std::string dst;
    std::string user;
    std::uint64_t uid = 0;
    std::vector<std::string> nodes;
    std::string pattern;
    std::string matrix;
    std::uint32_t ranks_per_node = 0;
    std::string mapping;
    std::vector<std::string> elephants;
    bool clear = false;
    std::string algorithm;
    std::string backend;
    std::string begin;
    std::string end;
    bool delete_entries = false;
  };

  CLI::App* command(CLI::App& parent, const std::string& name, const std::string& description);
  CLI::Option* job_option(CLI::App& cmd, bool required, const std::string& description);
  void add_queries();
  void add_job_commands();
  void add_quarantine_commands();
  [[nodiscard]] Request build(const Environment& env) const;
  [[nodiscard]] JobId own_job(const CLI::Option* job, const Environment& env) const;
  [[nodiscard]] std::optional<Traffic> traffic(const CLI::Option* pattern,
                                               const CLI::Option* matrix) const;
  [[nodiscard]] std::string command_path() const;
  [[nodiscard]] std::optional<std::string> command_problem() const;
  void report(std::ostream& err, const std::string& option, const std::string& what) const;

  CLI::App app_;
  Values v_;
  CLI::Option* timeout_ = nullptr;
  CLI::App* ping_ = nullptr;
  CLI::App* flows_ = nullptr;
  CLI::Option* flows_switch_ = nullptr;
  CLI::Option* flows_job_ = nullptr;
  CLI::App* jobs_ = nullptr;
  CLI::App* links_ = nullptr;
  CLI::Option* links_top_ = nullptr;
  CLI::App* route_ = nullptr;
  CLI::Option* jobs_job_ = nullptr;
  CLI::Option* route_job_ = nullptr;
  CLI::App* audit_ = nullptr;
  CLI::App* stats_ = nullptr;
  CLI::App* start_ = nullptr;
  CLI::Option* start_uid_ = nullptr;
  CLI::Option* start_pattern_ = nullptr;
  CLI::Option* start_matrix_ = nullptr;
  CLI::Option* start_rpn_ = nullptr;
  CLI::Option* start_mapping_ = nullptr;
  CLI::Option* start_algorithm_ = nullptr;
  CLI::Option* start_backend_ = nullptr;
  CLI::App* end_ = nullptr;
  CLI::App* phase_ = nullptr;
  CLI::Option* phase_job_ = nullptr;
  CLI::Option* phase_begin_ = nullptr;
  CLI::Option* phase_end_ = nullptr;
  CLI::Option* phase_pattern_ = nullptr;
  CLI::Option* phase_matrix_ = nullptr;
  CLI::App* hint_ = nullptr;
  CLI::Option* hint_job_ = nullptr;
  CLI::App* quarantine_ = nullptr;
  CLI::App* release_ = nullptr;
};

Parser::Parser()
    : app_(
          "ibsdnctl: query and drive the ibsdn SDN controller inside OpenSM over its notice "
          "socket",
          "ibsdnctl") {
  app_.footer(kExitCodes);
  app_.require_subcommand(1);
  // Global options may follow the command too: `ibsdnctl flows --json`. Subcommands created
  // below inherit this.
  app_.fallthrough();
  app_.set_version_flag("--version", std::string("ibsdnctl ") + IBSDN_VERSION);
  app_.add_option("--socket", v_.socket,
                  "the controller's notice socket (default: $" + std::string(kSocketEnvVar) +
                      ", else " + std::string(kDefaultSocketPath) + ")")
      ->type_name("PATH");
  timeout_ = app_.add_option("--timeout", v_.timeout_ms,
                             "milliseconds for connecting and the answer (default: 30000 for job "
                             "start, job phase --begin, job hint and quarantine release, which "
                             "wait for the switches; 10000 otherwise)")
                 ->type_name("MS")
                 ->check(CLI::Range(std::uint64_t{1}, kMaxTimeoutMs));
  app_.add_flag("--json", v_.json, "print the controller's response line instead of a table");
  add_queries();
  add_job_commands();
  add_quarantine_commands();
}

CLI::App* Parser::command(CLI::App& parent, const std::string& name,
                          const std::string& description) {
  CLI::App* cmd = parent.add_subcommand(name, description);
  cmd->footer(kExitCodes);
  return cmd;
}

CLI::Option* Parser::job_option(CLI::App& cmd, bool required, const std::string& description) {
  CLI::Option* o = cmd.add_option("--job", v_.job, description)
                       ->type_name("ID")
                       ->check(CLI::Range(std::uint64_t{1}, kMaxJobId));
  if (required) o->required();
  return o;
}

void Parser::add_queries() {
  ping_ = command(app_, "ping", "check that the controller answers; print its version");

  flows_ = command(app_, "flows", "print flow entries per switch, in ovs-ofctl dump-flows form");
  flows_switch_ = flows_
                      ->add_option("--switch", v_.switch_ref,
                                   "only this switch: a LID (decimal), a GUID (0x...) or a node "
                                   "name")
                      ->type_name("NAME|GUID|LID");
  flows_job_ = job_option(*flows_, false, "only the entries of this job (their cookie)");
  flows_->add_flag("--from-switch", v_.from_switch,
                   "read the tables back from the switches instead of the controller's intent");

  jobs_ = command(app_, "jobs", "list the active jobs");
  jobs_job_ = job_option(*jobs_, false, "only this job");

  links_ = command(app_, "links", "list the loaded links, most loaded first");
  links_top_ = links_->add_option("--top", v_.top, "only the N most loaded links")
                   ->type_name("N")
                   ->check(CLI::Range(std::uint32_t{1}, kMaxLinksTop));

  route_ = command(app_, "route", "show the path from one host to another, hop by hop");
  route_->add_option("SRC", v_.src, "source host")->required();
  route_->add_option("DST", v_.dst, "destination host")->required();
  route_job_ = job_option(*route_, false,
                          "the path this job's packets take (to the destination's LID at the "
                          "job's LID offset, with LMC)");

  audit_ = command(app_, "audit",
                   "compare the switches' tables with the controller's intent (exit 1 when they "
                   "differ)");
  audit_->add_flag("--repair", v_.repair,
                   "also re-install missing entries and remove stale ones (root or the Slurm "
                   "user)");
  stats_ = command(app_, "stats", "print the controller's counters");
}

void Parser::add_job_commands() {
  CLI::App* job = command(app_, "job",
                          "start or end a job, switch its phase, give hints (Slurm "
                          "does this from its prolog and epilog)");
  job->require_subcommand(1);

  start_ = command(*job, "start",
                   "route a job and install its flow entries; answers once they are in place");
  job_option(*start_, true, "the Slurm job id (the cookie of its flow entries)");
  start_->add_option("--user", v_.user, "the job's owner")->type_name("USER")->required();
  start_uid_ = start_->add_option("--uid", v_.uid, "the owner's uid")
                   ->type_name("N")
                   ->check(CLI::Range(std::uint64_t{0}, kMaxUid));
  // No CLI11 delimiter: the commas inside "node[01-16,20]" belong to the host list.
  start_
      ->add_option("--nodes", v_.nodes,
                   "the job's hosts in rank-placement order: a Slurm host list such as "
                   "node[01-16,20],gpu3, or comma-separated names (repeatable)")
      ->type_name("HOSTLIST")
      ->required();
  start_pattern_ = start_
                       ->add_option("--pattern", v_.pattern,
                                    "the job's traffic as a pattern: NAME or "
                                    "NAME:OPT=VALUE,... (e.g. shift:k=3)")
                       ->type_name("TEXT");
  start_matrix_ = start_
                      ->add_option("--matrix", v_.matrix,
                                   "the job's traffic as a traffic-matrix file: lines "
                                   "'src_rank dst_rank bytes'")
                      ->type_name("FILE")
                      ->excludes(start_pattern_);
  start_rpn_ = start_
                   ->add_option("--ranks-per-node", v_.ranks_per_node,
                                "ranks on each node (default: the nodes' GPU count, or 1)")
                   ->type_name("N")
                   ->check(CLI::Range(std::uint32_t{1}, kMaxRanksPerNode));
  start_mapping_ = start_->add_option("--mapping", v_.mapping, "rank placement (default: block)")
                       ->type_name("MAPPING")
                       ->check(CLI::IsMember({"block", "cyclic"}));
  start_
      ->add_option("--elephant", v_.elephants,
                   "a rank pair that carries most of the bytes (repeat, or comma-separate)")
      ->type_name("SRC:DST")
      ->delimiter(',');
  start_algorithm_ = start_
                         ->add_option("--algorithm", v_.algorithm,
                                      "routing algorithm, overriding the configuration")
                         ->type_name("NAME");
  start_backend_ =
      start_
          ->add_option("--backend", v_.backend,
                       "where the routes go, overriding the configuration's install_backend "
                       "(dry_run: report what would change, write nothing)")
          ->type_name("BACKEND")
          ->check(CLI::IsMember({"auto", "flow_table", "lft", "dry_run"}));
  start_->add_flag("--path-bits", v_.path_bits,
                   "the job's tasks send with the LID offset the controller gives (LMC: its own "
                   "LIDs on shared nodes; the SPANK plugin exports it as UCX_IB_LID_PATH_BITS)");

  end_ = command(*job, "end", "remove a job's flow entries (its traffic returns to the LFT)");
  job_option(*end_, true, "the job id");

  // Users run these from inside their own jobs (the controller accepts them from the job's owner).
  const std::string own_job =
      "the job id (default inside a Slurm job: $" + std::string(kSlurmJobEnvVar) + ")";
  phase_ = command(*job, "phase", "begin or end a communication phase of a job (its owner may)");
  phase_job_ = job_option(*phase_, false, own_job);
  phase_begin_ = phase_->add_option("--begin", v_.begin, "begin this phase")->type_name("NAME");
  phase_end_ = phase_->add_option("--end", v_.end, "end this phase")
                   ->type_name("NAME")
                   ->excludes(phase_begin_);
  phase_pattern_ = phase_
                       ->add_option("--pattern", v_.pattern,
                                    "with --begin: the phase's traffic, unless job start "
                                    "declared it")
                       ->type_name("TEXT")
                       ->excludes(phase_end_);
  phase_matrix_ = phase_
                      ->add_option("--matrix", v_.matrix,
                                   "with --begin: the phase's traffic as a traffic-matrix file")
                      ->type_name("FILE")
                      ->excludes(phase_end_)
                      ->excludes(phase_pattern_);

  hint_ =
      command(*job, "hint", "replace a job's elephant pairs (re-routes the job; its owner may)");
  hint_job_ = job_option(*hint_, false, own_job);
  CLI::Option* elephants = hint_
                               ->add_option("--elephant", v_.elephants,
                                            "a rank pair that carries most of the bytes "
                                            "(repeat, or comma-separate)")
                               ->type_name("SRC:DST")
                               ->delimiter(',');
  hint_->add_flag("--clear", v_.clear, "remove the job's elephant pairs")->excludes(elephants);
}

void Parser::add_quarantine_commands() {
  quarantine_ = command(app_, "quarantine",
                        "list the jobs the state store could not read back (their entries stay on "
                        "the switches, untouched by audits), or release one");
  quarantine_->require_subcommand(0, 1);
  release_ = command(*quarantine_, "release",
                     "release a quarantined job (root only): its id may be used again; its "
                     "entries are left for the next audit with repair unless --delete-entries");
  job_option(*release_, true, "the quarantined job's id");
  release_->add_flag("--delete-entries", v_.delete_entries,
                     "also delete the job's entries (its cookie) from the switches now; its "
                     "traffic then takes the LFT routes, even if the job still runs");
}

std::optional<Traffic> Parser::traffic(const CLI::Option* pattern,
                                       const CLI::Option* matrix) const {
  if (pattern->count() > 0) return Traffic(parse_pattern(v_.pattern));
  if (matrix->count() > 0) return Traffic(read_matrix(v_.matrix));
  return std::nullopt;
}

// --job, or inside a Slurm job the job itself.
JobId Parser::own_job(const CLI::Option* job, const Environment& env) const {
  if (job->count() > 0) return JobId(v_.job);
  const std::string var = "$" + std::string(kSlurmJobEnvVar);
  if (!env.slurm_job_id || env.slurm_job_id->empty()) {
    throw UsageError{"--job", "required outside a Slurm job (" + var + " is not set)"};
  }
  const std::string& text = *env.slurm_job_id;
  std::uint64_t id = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), id, 10);
  if (ec != std::errc() || ptr != text.data() + text.size() || id < 1 || id > kMaxJobId) {
    throw UsageError{"--job", var + " is '" + text + "', not a job id (1.." +
                                  std::to_string(kMaxJobId) + "); give --job"};
  }
  return JobId(id);
}

Request Parser::build(const Environment& env) const {
  if (ping_->parsed()) return PingQuery{};
  if (jobs_->parsed()) {
    JobsQuery q;
    if (jobs_job_->count() > 0) q.job = JobId(v_.job);
    return q;
  }
  if (audit_->parsed()) return AuditQuery{v_.repair};
  if (stats_->parsed()) return StatsQuery{};
  if (flows_->parsed()) {
    FlowsQuery q;
    if (flows_switch_->count() > 0) q.switch_ref = parse_switch(v_.switch_ref);
    if (flows_job_->count() > 0) q.job = JobId(v_.job);
    q.from_switch = v_.from_switch;
    return q;
  }
  if (links_->parsed()) {
    LinksQuery q;
    if (links_top_->count() > 0) q.top = v_.top;
    return q;
  }
  if (route_->parsed()) {
    RouteQuery q{v_.src, v_.dst, std::nullopt};
    if (route_job_->count() > 0) q.job = JobId(v_.job);
    return q;
  }
  if (start_->parsed()) {
    JobStartRequest r;
    r.job = JobId(v_.job);
    r.user = v_.user;
    if (start_uid_->count() > 0) r.uid = static_cast<std::uint32_t>(v_.uid);
    r.nodes = expand_nodes(v_.nodes);
    std::optional<Traffic> t = traffic(start_pattern_, start_matrix_);
    if (!t) throw UsageError{"", "job start needs --pattern TEXT or --matrix FILE"};
    r.traffic = std::move(*t);
    if (start_rpn_->count() > 0) r.ranks_per_node = v_.ranks_per_node;
    if (start_mapping_->count() > 0) r.mapping = parse_mapping(v_.mapping);
    r.elephants = parse_elephants(v_.elephants);
    if (start_algorithm_->count() > 0) r.algorithm = v_.algorithm;
    if (start_backend_->count() > 0) r.backend = parse_install_backend(v_.backend);
    r.path_bits = v_.path_bits;
    return r;
  }
  if (end_->parsed()) return JobEndRequest{JobId(v_.job)};
  if (phase_->parsed()) {
    PhaseRequest r;
    r.job = own_job(phase_job_, env);
    if (phase_begin_->count() > 0) {
      r.action = PhaseAction::kBegin;
      r.name = v_.begin;
      r.traffic = traffic(phase_pattern_, phase_matrix_);
    } else if (phase_end_->count() > 0) {
      r.action = PhaseAction::kEnd;
      r.name = v_.end;
    } else {
      throw UsageError{"", "job phase needs --begin NAME or --end NAME"};
    }
    return r;
  }
  if (release_->parsed()) return QuarantineReleaseRequest{JobId(v_.job), v_.delete_entries};
  if (quarantine_->parsed()) return QuarantineQuery{};
  if (hint_->parsed()) {
    if (v_.elephants.empty() && !v_.clear) {
      throw UsageError{"", "job hint needs --elephant SRC:DST (or --clear to remove the pairs)"};
    }
    return HintRequest{own_job(hint_job_, env), parse_elephants(v_.elephants)};
  }
  // require_subcommand(1) on the app and on `job` leaves no other way out of parse().
  throw UsageError{"", "no command"};
}

std::string Parser::command_path() const {
  std::string path = "ibsdnctl";
  const CLI::App* at = &app_;
  while (!at->get_subcommands().empty()) {
    at = at->get_subcommands().front();
    path += " " + at->get_name();
  }
  return path;
}

// CLI11 reports both `ibsdnctl` and `ibsdnctl bogus` as "A subcommand is required"; say which
// word it did not know, and what it would have known.
std::optional<std::string> Parser::command_problem() const {
  const CLI::App* at = &app_;
  while (!at->get_subcommands().empty()) at = at->get_subcommands().front();
  if (at->get_require_subcommand_min() == 0) return std::nullopt;
  std::string known;
  for (const CLI::App* sub : at->get_subcommands({})) {
    known += (known.empty() ? "" : ", ") + sub->get_name();
  }
  const std::vector<std::string> left = app_.remaining();
  if (left.empty()) return "a command is needed (" + known + ")";
  if (left.front().starts_with('-')) return std::nullopt;
  return "unknown command '" + left.front() + "' (known: " + known + ")";
}

void Parser::report(std::ostream& err, const std::string& option, const std::string& what) const {
  err << "ibsdnctl: " << (option.empty() ? "" : option + ": ") << what << "\n"
      << "Run '" << command_path() << " --help' for more information.\n";
}

CommandLine Parser::parse(std::span<const std::string> args, const Environment& env,
                          std::ostream& out, std::ostream& err) {
  // CLI11 takes the arguments last first.
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app_.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    out << app_.help();
    return {};
  } catch (const CLI::CallForAllHelp&) {
    out << app_.help("", CLI::AppFormatMode::All);
    return {};
  } catch (const CLI::CallForVersion& e) {
    out << e.what() << "\n";
    return {};
  } catch (const CLI::ParseError& e) {
    const bool no_command = std::string_view(e.what()).find("subcommand") != std::string_view::npos;
    report(err, "", (no_command ? command_problem() : std::nullopt).value_or(e.what()));
    return {std::nullopt, ExitCode::kUsage};
  }

  Invocation inv;
  try {
    inv.request = build(env);
    // The controller's own parser: whatever it would refuse is refused here, by option name.
    const ParsedRequest checked = parse_request(request_line(inv.request));
    if (!checked.ok()) {
      throw UsageError{option_for(checked.error().at, inv.request), checked.error().message};
    }
  } catch (const UsageError& e) {
    report(err, e.option, e.what);
    return {std::nullopt, ExitCode::kUsage};
  }

  if (!v_.socket.empty()) {
    inv.socket_path = v_.socket;
  } else if (env.socket && !env.socket->empty()) {
    inv.socket_path = *env.socket;
  } else {
    inv.socket_path = std::string(kDefaultSocketPath);
  }
  const bool routes = std::holds_alternative<JobStartRequest>(inv.request) ||
                      std::holds_alternative<HintRequest>(inv.request) ||
                      std::holds_alternative<QuarantineReleaseRequest>(inv.request) ||
                      (std::holds_alternative<PhaseRequest>(inv.request) &&
                       std::get<PhaseRequest>(inv.request).action == PhaseAction::kBegin);
  inv.timeout = timeout_->count() > 0 ? std::chrono::milliseconds(v_.timeout_ms)
                                      : (routes ? kRoutingTimeout : kQueryTimeout);
  inv.json_output = v_.json;
  return {std::move(inv), ExitCode::kOk};
}

}  // namespace

CommandLine parse_command_line(std::span<const std::string> args, const Environment& env,
                               std::ostream& out, std::ostream& err) {
  Parser parser;
  return parser.parse(args, env, out, err);
}

std::string request_line(const Request& request) {
  // Invalid UTF-8 from the command line becomes U+FFFD, which the check in parse() then refuses
  // with the controller's message instead of an exception from dump().
  return request_to_json(request).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace ibsdn::cli
