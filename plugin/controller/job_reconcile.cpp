// JobController: keeping every job on its recorded paths when something else changes (another
// job's entries, a SUBNET UP with a new fabric), re-routing the jobs whose traffic moved.
#include <chrono>
#include <exception>
#include <optional>

#include "plugin/controller/algorithm_pick.hpp"
#include "plugin/controller/job_controller.hpp"
#include "plugin/controller/job_text.hpp"
#include "plugin/controller/path_signature.hpp"
#include "routing/flow_compiler.hpp"
#include "routing/route_quality.hpp"

namespace ibsdn::plugin {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

void JobController::reconcile(std::optional<OrderKey> after, bool accept_unknown) {
  const std::string occasion = after ? "after a job before it changed" : "on the new fabric";
  const Fabric& f = fabric_->subnet.fabric;
  // Every job's entries as they stand, for the traces: built once, and again only after a job's
  // entries changed (a re-route or a withdrawal), not once per job (O(jobs x entries) per end).
  std::optional<ForwardingOverride> tables;
  for (auto& [id, jp] : ordered_jobs()) {
    Job& j = *jp;
    if (after && order_of(id, j) <= *after) continue;
    if (j.adopted) continue;  // its traffic is unknown: it keeps the entries it was found with
    bool ok = true;
    std::string why;
    try {
      if (j.nodes.empty() || j.flows.empty() || !j.routed) {
        j.nodes = resolve_hosts(fabric_->subnet, *hca_names_, hosts_ ? &*hosts_ : nullptr,
                                j.request.nodes);
        JobTraffic t = build_job_traffic(f, j.nodes, current_traffic(j), j.request.ranks_per_node,
                                         j.request.mapping, j.request.elephants, id,
                                         config_.limits.max_rank_flows);
        j.flows = std::move(t.flows);
        j.rank_flows = t.rank_flows;
        j.lft.clear();
      }
    } catch (const std::exception& e) {
      if (j.routed && net_->job(id)) net_->remove_job(id);
      j.routed = false;
      j.ready.degraded = true;
      ++j.version;
      log(LogCode::kJobUnplaceable,
          job_text(id) + " cannot be placed on this fabric: " + e.what() +
              "; it keeps its entries but carries no load until its hosts "
              "return");
      continue;
    }
    for (const auto& [g, entries] : j.entries) ok = ok && switches_.find(g).has_value();
    // Where its traffic goes now, through the LFTs and every job's entries as they stand.
    std::vector<Path> paths;
    std::vector<Signature> signature;
    if (ok) {
      try {
        if (!tables) tables = flow_table_override(all_tables());
        TraceOptions to;
        to.override_port = *tables;
        std::optional<LidMap> shifted;
        to.lids = &lids_of(j, shifted, nullptr);
        for (const Flow& fl : j.flows) {
          Trace t = trace(f, fabric_->lfts, fl.src, fl.dst, to);
          if (!t.ok()) {
            ok = false;
            why = t.error;
            break;
          }
          signature.push_back(signature_of(f, t.path));
          paths.push_back(std::move(t.path));
        }
      } catch (const std::exception& e) {
        ok = false;
        why = e.what();
      }
    }
    const bool known = !j.signature.empty() || j.flows.empty();
    if (ok && ((accept_unknown && !known) || signature == j.signature)) {
      if (!net_->job(id)) {
        net_->restore_job(
            NetworkState::Job{id, j.algorithm, j.flows, paths, evaluate(f, j.flows, paths)});
      }
      j.effective = std::move(paths);
      j.signature = std::move(signature);
      if (j.off_path.size() != j.flows.size()) j.off_path.assign(j.flows.size(), OffPath::kNone);
      if (j.shared_with.size() != j.flows.size()) j.shared_with.assign(j.flows.size(), JobId(0));
      // Its entries stay: the published view changes only if the job was not routed.
      if (!j.routed) ++j.version;
      j.routed = true;
      continue;
    }
    // Its traffic moved or broke: route it again on what the fabric is now. A fat-tree that loses
    // cables stays a fat-tree and keeps its algorithm; a fabric recabled into another topology
    // may no longer be what the algorithm its notice named needs: then the configured one takes
    // over (pick_algorithm). Its entries change either way (re-placed, or withdrawn).
    tables.reset();
    try {
      const std::string before = j.algorithm;
      place(id, j, deadline_from(Clock::now()));
      if (j.ready.algorithm_reason == to_string(AlgorithmReason::kFallback) &&
          j.algorithm != before) {
        log(LogLevel::kWarn, job_text(id) + ": " + *j.request.algorithm +
                                 " cannot route the fabric any more; using " + j.algorithm);
      }
      ++counters_["reroutes"];
      log(LogLevel::kInfo, job_text(id) + " re-routed " + occasion +
                               (why.empty() ? "" : " (" + why + ")") + ": L_D " +
                               std::to_string(j.ready.max_link_load) + ", " +
                               std::to_string(j.ready.entries) + " entries");
    } catch (const std::exception& e) {
      if (cancel_.load()) {
        // Shutting down: the job keeps its entries; the next start reconciles it.
        log(LogLevel::kWarn, job_text(id) + " not re-routed: the controller is stopping");
        return;
      }
      log(LogCode::kRerouteFailed,
          job_text(id) + " could not be re-routed (" + e.what() +
              "); its entries are removed, its traffic takes the default routes");
      withdraw(id, j);
    }
  }
}

void JobController::fabric_updated(FabricSnapshot snapshot) {
  const bool first = fabric_ == nullptr;
  // What the sweep that led here wrote over the defaults.
  const std::shared_ptr<const LftOverrides> swept = handed_lft_;
  fabric_ = std::make_shared<const FabricSnapshot>(std::move(snapshot));
  // Also resets the back-off of switches whose cabling changed.
  switches_.update(std::shared_ptr<const Subnet>(fabric_, &fabric_->subnet));
  hca_names_ = std::make_unique<const HcaNames>(fabric_->subnet.fabric);
  net_ = std::make_unique<NetworkState>(fabric_->subnet.fabric);
  lids_per_node_ = lids_per_node(fabric_->subnet);
  ++counters_["subnet_ups"];
  if (first && !reloaded_) {
    reload_from_store();
    reloaded_ = true;
  }
  // Node indices may differ on the new fabric: every job's flows are rebuilt and re-traced.
  for (auto& [id, j] : jobs_) {
    j.nodes.clear();
    j.flows.clear();
    j.lft.clear();
    j.routed = false;
  }
  // A new master (or a restart) first learns what the switches hold: nothing found under a
  // cookie is deleted before it is known to belong to no job (job_takeover.cpp).
  const bool took_over = takeover_;
  if (first || took_over) {
    take_over(took_over);
    takeover_ = false;
  }
  reconcile(std::nullopt, first || took_over);
  guard_load("on the new fabric");
  // The routing engine keeps every job's LFT entries from the next sweep on (it had the stored
  // ones since the controller started; the LFT audit below writes back whatever differs).
  keep_lft_overrides();
  rewrite_swept_lft_blocks(swept);
  AuditOutcome a = audit_switches(switches_.due(SwitchRegistry::Clock::now()), true);
  audit_lft_blocks(a, true);
  std::size_t unreachable = 0;
  for (const AuditFinding& fd : a.findings) unreachable += fd.kind == "unreachable";
  log(a.repaired > 0 || a.lft_repaired > 0 || unreachable > 0 ? LogLevel::kWarn : LogLevel::kInfo,
      "audit after SUBNET UP: " + std::to_string(a.checked) + " switches, " +
          std::to_string(a.findings.size() - unreachable) + " differences (" +
          std::to_string(a.repaired) + " FlowMods to repair), " + std::to_string(unreachable) +
          " unreachable" +
          (a.lft_blocks == 0 ? std::string()
                             : "; LFTs: " + std::to_string(a.lft_blocks) + " block(s) read on " +
                                   std::to_string(a.lft_switches) + " switch(es), " +
                                   std::to_string(a.lft_repaired) + " rewritten"));
  publish();
}

}  // namespace ibsdn::plugin
