// JobController: planning a job's routes and entries, placing them on the switches, removing them
// (withdrawal); the notices that start and change jobs are in job_notices.cpp. docs/routing.md,
// "Overlapping jobs", explains the rules that keep jobs from fighting over entries.
#include <algorithm>
#include <exception>
#include <numeric>
#include <unordered_map>
#include <utility>

#include "common/quote_for_message.hpp"
#include "flowtable/guid_text.hpp"
#include "plugin/controller/algorithm_pick.hpp"
#include "plugin/controller/job_controller.hpp"
#include "plugin/controller/job_text.hpp"
#include "plugin/controller/path_signature.hpp"
#include "plugin/controller/switch_sync.hpp"
#include "routing/algorithm.hpp"
#include "routing/route_quality.hpp"

namespace ibsdn::plugin {
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

/// A flow's host pair as a single key.
std::uint64_t pair_key(const Flow& f) {
  return (std::uint64_t{f.src.value()} << 32) | f.dst.value();
}

bool more_important(const Flow& a, const Flow& b) {
  if (a.elephant != b.elephant) return a.elephant;
  if (a.bytes != b.bytes) return a.bytes > b.bytes;
  return a.weight > b.weight;
}

/// Takes a job's load off the network state for as long as it lives (routing a job must not
/// count its own previous routes), and puts it back unless told the new load replaced it.
class LoadLifted {
 public:
  LoadLifted(NetworkState& net, JobId id) : net_(net) {
    if (const NetworkState::Job* j = net.job(id)) {
      saved_ = *j;
      net.remove_job(id);
    }
  }
  ~LoadLifted() {
    if (saved_) net_.restore_job(std::move(*saved_));
  }
  LoadLifted(const LoadLifted&) = delete;
  LoadLifted& operator=(const LoadLifted&) = delete;
  void replaced() { saved_.reset(); }

 private:
  NetworkState& net_;
  std::optional<NetworkState::Job> saved_;
};

}  // namespace

// ---- Planning -----------------------------------------------------------------------------

JobController::Plan JobController::plan(JobId id, const Job& j, const std::set<Guid>& excluded,
                                        bool no_entries, const Deadline& deadline) {
  const Fabric& f = fabric_->subnet.fabric;
  const auto route_start = Clock::now();
  Plan p;
  const LftSet& lfts = fabric_->lfts;
  // The LIDs the job's packets carry: the hosts' base LIDs, or base + the job's LID offset.
  std::optional<LidMap> shifted;
  std::string offset_lost;
  const LidMap& lids = lids_of(j, shifted, &offset_lost);
  if (!offset_lost.empty()) p.ready.warnings.push_back(offset_lost);
  const std::uint8_t my_offset = offset_in_effect(j);
  p.ready.lid_offset = my_offset;
  JobTraffic traffic =
      build_job_traffic(f, j.nodes, current_traffic(j), j.request.ranks_per_node, j.request.mapping,
                        j.request.elephants, id, config_.limits.max_rank_flows);
  p.flows = std::move(traffic.flows);
  p.rank_flows = traffic.rank_flows;
  const std::size_t n = p.flows.size();
  p.off_path.assign(n, OffPath::kNone);
  p.shared_with.assign(n, JobId(0));
  deadline.check("building the job's flows");

  // The algorithm depends on the flows when the configuration leaves it to the traffic (auto).
  AlgorithmPick pick = pick_algorithm(config_.algorithms, f, j.request.algorithm, p.flows);
  std::unique_ptr<RoutingAlgorithm> alg;
  try {
    alg = make_algorithm(pick.name);
  } catch (const std::exception& e) {
    throw NoticeFailure(ErrorCode::kUnroutable, e.what(), "/algorithm");
  }
  if (const std::string why = alg->unsupported_reason(f); !why.empty()) {
    throw NoticeFailure(ErrorCode::kUnroutable, pick.name + " cannot route this fabric: " + why);
  }
  const GuardMeasure measure = guard_measure(p.flows);
  if (config_.load_guard) p.ready.guard_measure = std::string(to_string(measure));

  // Only other jobs' flows toward this job's destinations, and their entries that can match
  // those DLIDs, can meet this job's packets or entries below (host pairs, destination-wide
  // entries, traces): the rest is skipped, so that a job start on nodes no other job sends to
  // costs nothing per other job's flow and entry (the static replay's 1000-job traces).
  std::vector<bool> my_destination(f.num_nodes(), false);
  std::vector<bool> my_dlid(std::size_t{kMaxUnicastLid.value()} + 1, false);
  for (const Flow& fl : p.flows) {
    my_destination[fl.dst.value()] = true;
    my_dlid[lids.lid(fl.dst).value()] = true;
  }

  // Host pairs that an earlier job carries follow that job's path (on the same LIDs: jobs on
  // different LID offsets send different LID pairs).
  const OrderKey mine = order_of(id, j);
  std::unordered_map<std::uint64_t, JobId> owner;
  std::uint64_t others_flows = 0;
  for (const auto& [oid, o] : jobs_) {
    if (oid == id || !o.routed) continue;
    others_flows += o.flows.size();
    if (order_of(oid, o) > mine || offset_in_effect(o) != my_offset) continue;
    for (const Flow& fl : o.flows) {
      if (my_destination[fl.dst.value()]) owner.emplace(pair_key(fl), oid);
    }
  }
  std::vector<bool> pinned(n, false);
  std::vector<std::size_t> free_flows;
  for (std::size_t i = 0; i < n; ++i) {
    if (const auto it = owner.find(pair_key(p.flows[i])); it != owner.end()) {
      pinned[i] = true;
      p.off_path[i] = OffPath::kShared;
      p.shared_with[i] = it->second;
    } else {
      free_flows.push_back(i);
    }
  }
  // Beyond the flow limits, the heaviest flows are routed and the others keep default routes.
  const std::uint64_t total_room = config_.limits.max_flows_total > others_flows
                                       ? config_.limits.max_flows_total - others_flows
                                       : 0;
  if (j.guarded && !no_entries) {
    // The load guard keeps the whole job on the default routes (job_guard.cpp).
    for (const std::size_t i : free_flows) {
      pinned[i] = true;
      p.off_path[i] = OffPath::kGuard;
    }
    if (!free_flows.empty()) {
      p.ready.warnings.push_back(
          std::to_string(free_flows.size()) +
          " flow(s) keep their default routes (load_guard): routed on top of the running jobs, "
          "they raised the fabric's busiest link above what the default routes give the same "
          "jobs, in " +
          std::string(to_string(measure)));
    }
    free_flows.clear();
  }
  const std::uint64_t room =
      no_entries ? 0 : std::min(config_.limits.max_flows_per_job, total_room);
  if (free_flows.size() > room) {
    std::stable_sort(free_flows.begin(), free_flows.end(), [&](std::size_t a, std::size_t b) {
      return more_important(p.flows[a], p.flows[b]);
    });
    for (std::size_t k = room; k < free_flows.size(); ++k) {
      pinned[free_flows[k]] = true;
      p.off_path[free_flows[k]] = OffPath::kFlowLimit;
    }
    free_flows.resize(room);
    std::sort(free_flows.begin(), free_flows.end());
    const auto limited = std::count(p.off_path.begin(), p.off_path.end(), OffPath::kFlowLimit);
    p.ready.warnings.push_back(
        std::to_string(limited) + " flow(s) beyond the flow limits (limits.max_flows_per_job " +
        std::to_string(config_.limits.max_flows_per_job) + ", max_flows_total " +
        std::to_string(config_.limits.max_flows_total) + ") keep their default routes");
  }

  // Other jobs' entries and traffic, which this job must neither duplicate nor divert.
  std::map<NodeIdx, std::vector<FlowEntry>> others = all_tables(std::make_pair(id, nullptr));
  for (auto it = others.begin(); it != others.end();) {
    std::erase_if(it->second, [&](const FlowEntry& e) {
      const auto& d = e.match.dlid;
      return d && d->mask == 0xffff && !my_dlid[d->value];
    });
    it = it->second.empty() ? others.erase(it) : std::next(it);
  }
  const FlowTables foreign = build_flow_tables(others);
  ForeignTraffic foreign_traffic;
  std::unordered_map<std::uint64_t, bool> mine_pairs;
  for (const Flow& fl : p.flows) mine_pairs.emplace(pair_key(fl), true);
  std::uint64_t step = 0;
  for (const auto& [oid, o] : jobs_) {
    if (oid == id || !o.routed) continue;
    const bool later = order_of(oid, o) > mine;
    const std::uint8_t their_offset = offset_in_effect(o);
    for (std::size_t k = 0; k < o.flows.size() && k < o.effective.size(); ++k) {
      deadline.check_every(step++, "collecting other jobs' traffic");
      const std::uint16_t dlid = dlid_at(their_offset, o.flows[k].dst).value();
      if (!my_dlid[dlid]) continue;
      // A later job's flow on one of this job's pairs follows this job's path, wherever it goes.
      if (later && their_offset == my_offset && mine_pairs.contains(pair_key(o.flows[k]))) {
        continue;
      }
      for (const LinkId l : o.effective[k]) {
        const Link& link = f.link(l);
        if (f.node(link.from).is_switch()) {
          foreign_traffic[{link.from, dlid}].insert(link.from_port.value());
        }
      }
    }
  }

  // Route the free flows on top of every other job's load; the pinned ones take what the
  // tables give them now.
  std::vector<Flow> to_route;
  to_route.reserve(free_flows.size());
  for (const std::size_t i : free_flows) to_route.push_back(p.flows[i]);
  // Switches that take the job's entries into their LFT (install_backend), but not the excluded
  // ones, nor any when the job takes no entries.
  std::vector<bool> in_lft = lft_switch_mask(j);
  if (no_entries) in_lft.assign(in_lft.size(), false);
  for (const Guid g : excluded) {
    if (const auto sw = f.find_guid(g)) in_lft[sw->value()] = false;
  }
  std::vector<Path> routed;
  {
    LoadLifted lifted(*net_, id);
    const bool any_lft = std::find(in_lft.begin(), in_lft.end(), true) != in_lft.end();
    // auto's sdn-volume costs up to hundreds of times sdn-optimal's time on large jobs
    // (docs/routing.md, "The default routing"): it gets half the time left, so that sdn-optimal
    // can still route the job when it runs out.
    const bool hedged = pick.reason == AlgorithmReason::kVolumes;
    try {
      RouteRequest req{f, to_route, &net_->load(), false, id.value()};
      req.deadline = deadline;
      if (const auto left = deadline.remaining(); hedged && left) {
        req.deadline = Deadline(Clock::now() + *left / 2, &cancel_);
      }
      // An LFT holds one port per destination: ask for such routes where the algorithm can give
      // them (the others' conflicting flows are left on default routes by the compiler).
      req.per_destination = alg->honours_per_destination() && any_lft;
      try {
        routed = alg->route(req);
      } catch (const DeadlineExceeded&) {
        if (!hedged || deadline.expired()) throw;
        pick = AlgorithmPick{std::string(kUnitAlgorithm), AlgorithmReason::kVolumesTimeout};
        alg = make_algorithm(pick.name);
        req.deadline = deadline;
        req.per_destination = alg->honours_per_destination() && any_lft;
        routed = alg->route(req);
        p.ready.warnings.push_back(
            std::string(kVolumeAlgorithm) +
            " did not finish within half of job_start_timeout_ms (" +
            std::to_string(config_.job_start_timeout_ms) + " ms): " + pick.name +
            " routed the job" +
            (config_.load_guard ? ", and the load guard holds it to the default routes in bytes"
                                : ""));
      }
    } catch (const DeadlineExceeded&) {
      throw;
    } catch (const std::exception& e) {
      throw NoticeFailure(ErrorCode::kUnroutable, pick.name + ": " + e.what());
    }
  }
  p.ready.algorithm = pick.name;
  p.ready.algorithm_reason = std::string(to_string(pick.reason));
  TraceOptions foreign_trace;
  foreign_trace.lids = &lids;
  foreign_trace.override_port = flow_table_override_of(foreign);
  std::vector<Path> chosen(n);
  for (std::size_t k = 0; k < free_flows.size(); ++k) chosen[free_flows[k]] = std::move(routed[k]);
  for (std::size_t i = 0; i < n; ++i) {
    if (!pinned[i]) continue;
    deadline.check_every(i, "tracing the job's shared and limited flows");
    Trace t = trace(f, lfts, p.flows[i].src, p.flows[i].dst, foreign_trace);
    if (!t.ok()) {
      throw NoticeFailure(ErrorCode::kUnroutable,
                          f.node(p.flows[i].src).name + " -> " + f.node(p.flows[i].dst).name +
                              " is not delivered by the current tables: " + t.error);
    }
    chosen[i] = std::move(t.path);
  }
  p.ready.route_ms = ms_since(route_start);

  // Compile within each switch's remaining room, never colliding with another job's entry.
  const auto compile_start = Clock::now();
  CompileOptions opt;
  opt.level = config_.flow_definition_level;
  opt.capacity = no_entries ? 0 : static_cast<std::uint32_t>(config_.table_capacity);
  std::vector<std::uint32_t> used = usage(id);
  for (const Guid g : excluded) {
    if (const auto sw = f.find_guid(g)) used[sw->value()] = opt.capacity;
  }
  // No flow entry where no agent answers: the flows stay on the LFT's routes there, unless the
  // LFT itself takes the job's entries.
  std::size_t incapable = 0;
  for (const Guid g : switches_.incapable()) {
    const auto sw = f.find_guid(g);
    if (!sw || in_lft[sw->value()]) continue;
    used[sw->value()] = opt.capacity;
    ++incapable;
  }
  opt.used = &used;
  opt.lft_switches = &in_lft;
  opt.foreign = &foreign;
  opt.foreign_traffic = &foreign_traffic;
  opt.pinned = &pinned;
  opt.deadline = deadline;
  opt.lids = &lids;
  CompiledFlows compiled;
  try {
    compiled = compile_flows(f, lfts, p.flows, chosen, id, opt);
  } catch (const DeadlineExceeded&) {
    throw;
  } catch (const std::exception& e) {
    throw NoticeFailure(ErrorCode::kUnroutable,
                        std::string("compiling the job's entries: ") + e.what());
  }
  p.ready.backend = std::string(to_string(backend_of(j)));
  for (auto& [sw, entries] : compiled.tables) {
    const bool lft = in_lft[sw.value()];
    if (lft) p.lft_switches.insert(f.node(sw).guid);
    ++(lft ? p.ready.lft_switches : p.ready.table_switches);
    (lft ? p.ready.lft_entries : p.ready.table_entries) += entries.size();
    p.entries[f.node(sw).guid] = std::move(entries);
  }
  std::size_t not_installed = 0;
  std::size_t on_lft = 0;
  std::size_t shared_destination = 0;
  const auto lft_held = [&](JobId holder, Guid sw) {
    const auto it = jobs_.find(holder);
    return it != jobs_.end() && it->second.lft_switches.contains(sw);
  };
  for (std::size_t i = 0; i < n; ++i) {
    deadline.check_every(i, "tracing the job's default routes");
    // Another job's LFT entry (destination-wide) decides a hop of this flow: it follows that
    // job's tree towards the shared destination.
    if (p.off_path[i] == OffPath::kNone && compiled.effective[i] != chosen[i]) {
      const PacketHeader h{lids.lid(p.flows[i].src), lids.lid(p.flows[i].dst)};
      for (const LinkId l : compiled.effective[i]) {
        const FlowEntry* e = winning_entry(foreign, f.link(l).from, h);
        if (e == nullptr || e->match.slid ||
            !lft_held(JobId(e->cookie), f.node(f.link(l).from).guid)) {
          continue;
        }
        p.off_path[i] = OffPath::kSharedDestination;
        p.shared_with[i] = JobId(e->cookie);
        ++shared_destination;
        break;
      }
    }
    if (compiled.on_default[i] && p.off_path[i] == OffPath::kNone) {
      p.off_path[i] = OffPath::kNoEntry;
      ++not_installed;
    }
    TraceOptions plain_trace;
    plain_trace.lids = &lids;
    Trace plain = trace(f, lfts, p.flows[i].src, p.flows[i].dst, plain_trace);
    if (plain.ok() && plain.path == compiled.effective[i]) ++on_lft;
    p.lft.push_back(plain.ok() ? std::move(plain.path) : Path{});
  }
  p.effective = std::move(compiled.effective);
  p.ready.compile_ms = ms_since(compile_start);

  p.ready.job = id;
  p.ready.flows = n;
  p.ready.matrix = matrix_counts(current_traffic(j));
  p.ready.flows_on_default = on_lft;
  p.ready.entries = compiled.entries;
  p.ready.bound = lower_bound(f, p.flows).value;
  p.ready.bound_ms = volume_lower_bound(f, p.flows).seconds * 1e3;
  std::size_t shared = 0;
  for (const OffPath o : p.off_path) shared += o == OffPath::kShared;
  if (shared > 0) {
    p.ready.warnings.push_back(std::to_string(shared) +
                               " flow(s) share a host pair with an earlier job and follow its "
                               "path (off_path lists them)");
  }
  if (shared_destination > 0) {
    p.ready.warnings.push_back(
        std::to_string(shared_destination) +
        " flow(s) go to nodes another job's routes hold in the LFTs (one port per destination "
        "LID) and follow that job's tree there (off_path lists them)");
  }
  if (not_installed > 0 && incapable > 0) {
    p.ready.warnings.push_back(std::to_string(incapable) +
                               " switch(es) of the fabric are not SDN-capable (no agent answers): "
                               "flows keep the LFT's route there");
  }
  if (not_installed > 0) {
    p.ready.warnings.push_back(std::to_string(not_installed) +
                               " flow(s) left on default routes: no room in the switches' tables, "
                               "another job's entry, or a failed switch");
  }
  p.ready.degraded = !excluded.empty() || no_entries || not_installed > 0 ||
                     std::any_of(p.off_path.begin(), p.off_path.end(), [](OffPath o) {
                       return o == OffPath::kFlowLimit || o == OffPath::kGuard;
                     });
  return p;
}

// ---- Placement ----------------------------------------------------------------------------

void JobController::place(JobId id, Job& j, Deadline deadline) {
  const Fabric& f = fabric_->subnet.fabric;
  const Job before = j;
  // What the switches hold of this job as the installation goes on.
  std::map<Guid, std::vector<FlowEntry>> believed = j.entries;
  std::set<Guid> believed_lft = j.lft_switches;
  std::set<Guid> excluded;
  std::vector<std::string> excluded_why;
  Plan p;
  double install_ms = 0;
  std::size_t lft_blocks = 0;
  bool stored = false;
  try {
    for (int attempt = 0;; ++attempt) {
      try {
        p = plan(id, j, excluded, attempt >= 3, deadline);
      } catch (const DeadlineExceeded& e) {
        throw NoticeFailure(ErrorCode::kTimeout, std::string("job_start_timeout_ms (") +
                                                     std::to_string(config_.job_start_timeout_ms) +
                                                     " ms): " + e.what() +
                                                     "; the job runs on default routes");
      }
      const auto install_start = Clock::now();
      Job next = j;
      next.algorithm = p.ready.algorithm;
      next.entries = p.entries;
      next.lft_switches = p.lft_switches;
      persist(id, next);  // the intent first: a crash mid-install is repaired by the next audit
      stored = true;
      const Installed res = install(id, Placement{believed, believed_lft},
                                    Placement{p.entries, p.lft_switches}, excluded);
      install_ms += ms_since(install_start);
      counters_["flow_mods_sent"] += res.flow_mods;
      counters_["barriers_sent"] += res.barriers;
      lft_blocks += res.lft_blocks;
      switches_.note_generations(res.generation);
      believed = p.entries;
      believed_lft = p.lft_switches;
      if (res.failed.empty() || attempt >= 3) break;
      for (const auto& [g, why] : res.failed) {
        excluded.insert(g);
        believed.erase(g);
        believed_lft.erase(g);
        switches_.forget_generation(g);
        const std::string name = f.node(fabric_->subnet.node_of(g)).name;
        excluded_why.push_back(
            name + (res.full.contains(g) ? " (table full): " : " did not take the entries: ") +
            why);
        log(LogLevel::kWarn, job_text(id) + ": switch " + name + " excluded: " + why);
      }
    }
  } catch (...) {
    // Back to the state before the notice: the switches this attempt touched get the job's
    // previous entries again (flow tables and LFTs), the store its previous intent.
    const Installed res = install(id, Placement{believed, believed_lft},
                                  Placement{before.entries, before.lft_switches}, excluded);
    switches_.note_generations(res.generation);
    for (const auto& [g, why] : res.failed) {
      switches_.forget_generation(g);
      log(LogLevel::kWarn, job_text(id) + ": switch " + guid_text(g) +
                               " did not take the rollback (" + why + "); the audit repairs it");
    }
    if (stored) {
      try {
        if (jobs_.contains(id)) {
          persist(id, before);
        } else {
          unpersist(id);
        }
      } catch (const std::exception& e) {
        log(LogCode::kStoreRestoreFailed,
            job_text(id) + ": cannot restore the state store: " + e.what());
      }
    }
    throw;
  }

  // Committed: the job's new load replaces the old.
  j.algorithm = p.ready.algorithm;
  {
    LoadLifted lifted(*net_, id);
    net_->restore_job(NetworkState::Job{id, j.algorithm, p.flows, p.effective,
                                        evaluate(f, p.flows, p.effective)});
    lifted.replaced();
  }
  std::int32_t busiest = 0;
  double busiest_seconds = 0.0;
  for (const Path& path : p.effective) {
    for (const LinkId l : path) {
      busiest = std::max(busiest, net_->load().flows(l));
      busiest_seconds =
          std::max(busiest_seconds, link_seconds(net_->load().volume(l), f.link(l).gbps));
    }
  }
  p.ready.max_link_load = busiest;
  p.ready.max_link_ms = busiest_seconds * 1e3;
  p.ready.install_ms = install_ms;
  p.ready.lft_blocks = lft_blocks;
  p.ready.degraded = p.ready.degraded || !excluded.empty();
  for (std::string& w : excluded_why) p.ready.warnings.push_back(std::move(w));
  j.flows = std::move(p.flows);
  j.signature.clear();
  for (const Path& path : p.effective) j.signature.push_back(signature_of(f, path));
  j.effective = std::move(p.effective);
  j.off_path = std::move(p.off_path);
  j.shared_with = std::move(p.shared_with);
  j.entries = std::move(p.entries);
  j.lft_switches = std::move(p.lft_switches);
  j.rank_flows = p.rank_flows;
  j.lft = std::move(p.lft);
  j.routed = true;
  j.ready = std::move(p.ready);
  ++j.version;
}

std::map<Guid, std::string> JobController::remove_entries(JobId id, const Job& j) {
  std::vector<SwitchChange> switches;
  for (const auto& [g, e] : j.entries) {
    if (j.lft_switches.contains(g)) continue;
    if (const auto sw = switches_.find(g)) {
      switches.push_back(SwitchChange{g, sw->lid, sw->name, {}, {}});
    }
  }
  std::map<Guid, std::string> failed;
  if (!switches.empty()) {
    const SyncResult r = delete_cookie(client_, config_.switch_key, switches, id.value());
    counters_["flow_mods_sent"] += switches.size();
    switches_.note_sync(r);
    failed = r.failed;
  }
  if (!j.lft_switches.empty()) {
    // The LFT blocks that held the job's entries get the default routes (and other jobs'
    // entries) back.
    std::map<Guid, std::vector<FlowEntry>> in_lft;
    for (const Guid g : j.lft_switches) {
      if (const auto it = j.entries.find(g); it != j.entries.end()) in_lft.insert(*it);
    }
    const std::map<Guid, std::vector<FlowEntry>> none;
    const std::set<Guid> no_switches;
    const Installed r = install(id, Placement{in_lft, j.lft_switches}, Placement{none, no_switches},
                                std::set<Guid>{});
    for (const auto& [g, why] : r.failed) failed.emplace(g, why);
  }
  if (net_->job(id)) net_->remove_job(id);
  return failed;
}

void JobController::withdraw(JobId id, Job& j) {
  for (const auto& [g, why] : remove_entries(id, j)) {
    log(LogLevel::kWarn, job_text(id) + ": switch " + guid_text(g) + " did not remove the job's " +
                             "entries (" + why + "); the next audit will");
  }
  j.entries.clear();
  j.lft_switches.clear();
  j.routed = false;
  j.ready.degraded = true;
  j.ready.entries = 0;
  ++j.version;
  try {
    persist(id, j);
  } catch (const std::exception& e) {
    log(LogCode::kStoreUpdateFailed, job_text(id) + ": cannot update the state store: " + e.what());
  }
}

}  // namespace ibsdn::plugin
