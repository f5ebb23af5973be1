// What the controller's queries read: an immutable snapshot of its state, published by the
// controller thread after every change and read by any thread. Queries (ping, jobs, flows as
// intended, links, route, stats) are answered from it on the notice server's thread, so they get
// their answer while a job routes or a MAD exchange waits on a dead switch.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "flowtable/flow_entry.hpp"
#include "plugin/controller/host_map.hpp"
#include "plugin/notice/notice.hpp"
#include "routing/lft.hpp"
#include "routing/link_load.hpp"
#include "routing/subnet.hpp"

namespace ibsdn::plugin {

/// Who sent a notice (SO_PEERCRED).
struct Caller {
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
  std::int32_t pid = 0;
};

/// A SUBNET UP: the fabric and the LFTs now on the switches.
struct FabricSnapshot {
  Subnet subnet;
  LftSet lfts;
  std::string engine;
};

/// One job as queries see it.
struct JobView {
  JobSummary summary;
  std::optional<std::uint32_t> owner_uid;
  std::map<Guid, std::vector<FlowEntry>> entries;  // intended, by switch
  std::set<Guid> lft_switches;                     // those of `entries` in the switch's LFT
};

struct ControllerView {
  std::shared_ptr<const FabricSnapshot> fabric;  // null before the first SUBNET UP
  std::shared_ptr<const HostMap> hosts;          // may be null
  std::map<JobId, std::shared_ptr<const JobView>> jobs;
  std::optional<LinkLoad> load;  // all jobs' load on the fabric's links
  std::int32_t swml_flows = 0;
  std::vector<std::pair<std::string, std::uint64_t>> counters;  // stats, sorted by name
  std::string version;
  std::string sm_state = "MASTER";  // OpenSM's SM state as the controller last saw it
};

/// The answer to a query the view can serve (ping, jobs, flows without --from-switch, links,
/// route, stats); nullopt for every other request. Errors come back as error responses.
std::optional<nlohmann::json> answer_from_view(const ControllerView& view, const Request& request);

/// Whether switch `node` (with its `lid`) is the one `ref` names: LID, node GUID, node name or
/// NodeDescription.
bool switch_matches(const Fabric& f, NodeIdx node, Lid lid, const SwitchRef& ref);

/// Requests answer_from_view() serves.
bool is_view_query(const Request& request);

/// All jobs' intended entries by switch node of the view's fabric.
std::map<NodeIdx, std::vector<FlowEntry>> view_tables(const ControllerView& view);

}  // namespace ibsdn::plugin
