// The cookies of quarantined jobs, as the controller keeps them apart (docs/operations.md,
// "Quarantined jobs"): a job the state store could not read back keeps its entries on the
// switches; no audit reports or removes them, no job may take its id, and operators see what the
// switches still hold of it. The rows themselves are the state store's
// (state_store_quarantine.cpp); the operators' face is JobController's (job_quarantine.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "flowtable/flow_entry.hpp"
#include "flowtable/types.hpp"

namespace ibsdn::plugin {

class QuarantinedCookies {
 public:
  /// What the switches hold of one quarantined cookie.
  struct Held {
    std::uint64_t entries = 0;   // entries with the cookie, over all switches
    std::uint64_t switches = 0;  // switches holding some
  };

  /// Keeps `cookie` apart (again: no change).
  void add(std::uint64_t cookie) { cookies_.insert(cookie); }
  [[nodiscard]] bool contains(std::uint64_t cookie) const { return cookies_.contains(cookie); }
  [[nodiscard]] bool empty() const { return cookies_.empty(); }
  /// The quarantined cookies, ascending.
  [[nodiscard]] const std::set<std::uint64_t>& cookies() const { return cookies_; }

  /// Records the entries of quarantined cookies in `table`, switch `sw`'s table as an audit read
  /// it (replacing what an earlier audit found there).
  void note_table(Guid sw, const std::vector<FlowEntry>& table);
  /// What the switches held of `cookie` as each one's last audit read it; nullopt until an audit
  /// has read a switch since `cookie` was quarantined.
  [[nodiscard]] std::optional<Held> held(std::uint64_t cookie) const;

  /// Releases `cookie`: no longer kept apart, what the audits found of it forgotten.
  void release(std::uint64_t cookie);

 private:
  std::set<std::uint64_t> cookies_;
  /// Entries with each quarantined cookie on each switch, as the switch's last audit read them.
  std::map<std::uint64_t, std::map<Guid, std::size_t>> held_;
};

}  // namespace ibsdn::plugin
