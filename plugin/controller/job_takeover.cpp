// JobController: following OpenSM's SM state, and taking the jobs over from the switches.
//
// Only the master SM's controller acts on the switches. A controller whose opensm is not master
// refuses job notices (not_master: Slurm's hook fails open) and leaves the switches alone. When it
// becomes master its store may be stale or empty, but the switches hold every job's entries under
// the job's cookie: they are the backup of the intent (docs/operations.md, "Fail-over").
//  - After a standby term (another SM was master meanwhile): the switches are the truth. A stored
//    job found there takes the entries found; a stored job with entries found on no switch (every
//    switch answered) ended under the other master and is dropped; a cookie the store does not
//    know becomes an "adopted" job.
//  - At the first SUBNET UP after a start (an opensm restart, or a new master with an empty
//    store): the store is the truth for its jobs; cookies it does not know are adopted, never
//    deleted.
// An adopted job keeps exactly the entries found, carries no load (its traffic is unknown) and
// is never re-routed; job_end by its id removes its entries. LFT entries carry no cookie: a
// stored job keeps its own (the LFT audit compares and repairs the blocks), and no job is
// adopted from an LFT.
#include <algorithm>
#include <chrono>
#include <exception>
#include <unordered_map>

#include "common/names.hpp"
#include "plugin/controller/job_controller.hpp"
#include "plugin/controller/job_text.hpp"

namespace ibsdn::plugin {
namespace {

/// The Slurm host name of HCA `n`: the host map's entry for it, else its NodeDescription's first
/// word; empty when neither is a valid host name.
std::string host_name_of(const Fabric& f, const HostMap* map, NodeIdx n) {
  const Node& node = f.node(n);
  std::string name;
  if (map != nullptr) {
    for (const HostMapEntry& e : map->entries()) {
      if ((e.guid && *e.guid == node.guid) ||
          (!e.guid && description_matches(node.description, e.description_prefix))) {
        name = e.hostname;
        break;
      }
    }
  }
  if (name.empty()) name = node.description.substr(0, node.description.find(' '));
  if (name.empty()) name = node.name;
  return hostname_problem(name).empty() ? name : std::string();
}

}  // namespace

void JobController::set_sm_state(bool master, bool other_master_seen, const std::string& state) {
  if (other_master_seen) takeover_ = true;
  if (master == master_ && state == sm_state_) return;
  const bool was_master = master_;
  master_ = master;
  sm_state_ = state;
  if (was_master && !master) {
    log(LogLevel::kWarn, "opensm is " + state +
                             ": the controller leaves the switches to the master SM's controller "
                             "and refuses job notices until this opensm is master");
  } else if (!was_master && master) {
    log(LogLevel::kInfo,
        "opensm is MASTER: the controller acts on the switches again" +
            std::string(takeover_ ? "; it takes the jobs over from the switches at the next "
                                    "SUBNET UP"
                                  : ""));
  }
  publish();
}

void JobController::refuse_unless_master(const Request& request) const {
  if (!master_ && sm_state_ == "DISCOVERING") {
    throw NoticeFailure(ErrorCode::kBusy, "opensm is DISCOVERING the subnet; retry");
  }
  if (!master_) {
    throw NoticeFailure(ErrorCode::kNotMaster,
                        std::string(op_name(request)) + ": this opensm is " + sm_state_ +
                            ", not the master SM; the master's controller handles jobs (traffic "
                            "takes the default routes)");
  }
  if (takeover_ && fabric_) {
    throw NoticeFailure(ErrorCode::kBusy,
                        "this opensm just became master: the controller takes the jobs over from "
                        "the switches at the next SUBNET UP; retry");
  }
}

void JobController::take_over(bool switches_are_truth) {
  // What every switch holds, by cookie.
  std::map<std::uint64_t, std::map<Guid, std::vector<FlowEntry>>> found;
  std::size_t unanswered = 0;
  for (const Switch& sw : switches_.due(SwitchRegistry::Clock::now())) {
    mad::Result<mad::TableRead> read = client_.read_table(sw.lid, config_.switch_key);
    note_answer(sw, static_cast<bool>(read), read ? std::string() : read.error().message);
    if (!read) {
      ++unanswered;
      continue;
    }
    for (FlowEntry& e : read.value().entries) {
      found[e.cookie][sw.guid].push_back(std::move(e));
    }
  }
  const Fabric& f = fabric_->subnet.fabric;
  const HostMap* map = hosts_ ? &*hosts_ : nullptr;
  // An LMC alias (a job on a LID offset) -> its port's base LID.
  std::unordered_map<std::uint16_t, Lid> base_of;
  for (const auto& [alias, base] : fabric_->subnet.lmc_aliases)
    base_of.emplace(alias.value(), base);
  std::size_t adopted = 0;
  std::size_t taken = 0;
  for (auto& [cookie, by_switch] : found) {
    if (quarantined_.contains(cookie) || cookie == 0) continue;
    const JobId id(cookie);
    if (const auto it = jobs_.find(id); it != jobs_.end()) {
      if (!switches_are_truth || it->second.adopted) continue;
      Job& j = it->second;
      // No agent reports LFT entries: those stay as stored (the audit compares the blocks).
      for (const Guid g : j.lft_switches) {
        if (const auto e = j.entries.find(g); e != j.entries.end()) by_switch[g] = e->second;
      }
      j.entries = std::move(by_switch);
      j.signature.clear();  // re-traced on what it holds now, and kept when deliverable
      ++j.version;
      ++taken;
      try {
        persist(id, j);
      } catch (const std::exception& e) {
        log(LogCode::kTakeoverStoreFailed,
            job_text(id) + ": cannot store the entries found: " + e.what());
      }
      continue;
    }
    Job j;
    j.adopted = true;
    j.algorithm = kAdoptedAlgorithm;
    j.request.job = id;
    j.request.user = kAdoptedUser;
    j.request.traffic = PatternSpec::parse("all-to-all");
    j.started_unix_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    j.start_seq = ++start_seq_;
    std::set<std::string> hosts;
    std::size_t entries = 0;
    for (const auto& [g, list] : by_switch) {
      entries += list.size();
      for (const FlowEntry& e : list) {
        if (!e.match.dlid || e.match.dlid->mask != 0xffff) continue;
        Lid dlid(e.match.dlid->value);
        if (const auto b = base_of.find(dlid.value()); b != base_of.end()) {
          // The job sent on its LID offset (LMC): keep it, so no new job takes it on its nodes.
          j.lid_offset = static_cast<std::uint8_t>(dlid.value() - b->second.value());
          dlid = b->second;
        }
        const auto owner = fabric_->subnet.lids.owner(dlid);
        if (!owner || !f.node(owner->node).is_hca()) continue;
        if (std::string h = host_name_of(f, map, owner->node); !h.empty()) hosts.insert(h);
      }
    }
    j.request.nodes.assign(hosts.begin(), hosts.end());
    j.entries = std::move(by_switch);
    log(LogLevel::kWarn, job_text(id) + " adopted from the switches: " + std::to_string(entries) +
                             " entries on " + std::to_string(j.entries.size()) +
                             " switches under its cookie, toward " + std::to_string(hosts.size()) +
                             " hosts; it keeps them until job_end " + std::to_string(id.value()));
    if (!j.request.nodes.empty()) {
      try {
        persist(id, j);
      } catch (const std::exception& e) {
        log(LogCode::kTakeoverStoreFailed,
            job_text(id) + ": cannot store the adopted job: " + e.what());
      }
    }
    jobs_.emplace(id, std::move(j));
    ++adopted;
    ++counters_["jobs_adopted"];
  }
  std::size_t dropped = 0;
  if (switches_are_truth && unanswered == 0) {
    for (auto it = jobs_.begin(); it != jobs_.end();) {
      const Job& j = it->second;
      // Only flow-table entries tell: no agent reports the LFT's.
      const bool had_entries = std::any_of(j.entries.begin(), j.entries.end(), [&](const auto& kv) {
        return !kv.second.empty() && !j.lft_switches.contains(kv.first);
      });
      if (!had_entries || found.contains(it->first.value())) {
        ++it;
        continue;
      }
      log(LogLevel::kWarn, job_text(it->first) +
                               " ended while another SM was master: no switch holds its entries "
                               "any more; dropped");
      unpersist(it->first);
      it = jobs_.erase(it);
      ++dropped;
    }
  }
  log(LogLevel::kInfo, std::string(switches_are_truth ? "took over from another master: "
                                                      : "jobs checked against the switches: ") +
                           std::to_string(adopted) + " adopted, " + std::to_string(taken) +
                           " stored jobs took the entries found, " + std::to_string(dropped) +
                           " dropped, " + std::to_string(unanswered) + " switches did not answer");
  // Flow entries carry their job's cookie; an LFT entry carries nothing. Where the other master
  // wrote jobs' routes into LFTs, this one knows only the jobs its own store holds (their blocks
  // are rewritten by the LFT audit); any other such job now runs on the default routes, which
  // this opensm's sweep wrote.
  const std::set<Guid> lft_only = switches_.incapable();
  if (switches_are_truth && config_.install_backend != InstallBackend::kFlowTable &&
      !lft_only.empty() && lft_unavailable().empty()) {
    log(LogLevel::kWarn,
        "took over from another master: " + std::to_string(lft_only.size()) +
            " switch(es) without an SDN agent hold jobs' routes in their LFTs, which carry no job "
            "id: a job this controller's store does not hold runs on the default routes there "
            "(ibsdn-slurm-reconcile lists such jobs as missing)");
  }
}

}  // namespace ibsdn::plugin
