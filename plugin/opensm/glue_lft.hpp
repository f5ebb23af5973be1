// The LFT backend inside opensm (plugin/controller/lft_access.hpp over the glue's lft_write and
// lft_read), and what the "sdn" routing engine keeps of it: every job's LFT entries, written over
// the default routes at each computation, and the default port each one replaced, so that the
// controller is handed the default routes at SUBNET UP, not its own entries.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "plugin/controller/lft_access.hpp"
#include "plugin/opensm/glue_services.hpp"
#include "routing/lft.hpp"
#include "routing/subnet.hpp"

namespace ibsdn::plugin {

/// The overrides the engine keeps, shared by the controller thread (keep) and OpenSM's sweep
/// thread (apply, restore_defaults). Thread-safe.
class KeptLftOverrides {
 public:
  void set(std::shared_ptr<const LftOverrides> overrides);
  /// Writes the kept overrides over `lfts` (the engine's default routes for `f`) where they
  /// still fit the fabric: a switch of `f` with a table, a cabled port of that switch, a LID the
  /// table routes, and a destination whose packets still arrive from every switch written (no
  /// loop, no dead end: a fabric change can make kept entries wrong; such a destination keeps
  /// all its default routes). Remembers the default port of each entry written. Returns how
  /// many.
  std::size_t apply(const Subnet& f, LftSet& lfts);
  /// Of the last apply(): entries left out because their destination would not be delivered.
  [[nodiscard]] std::size_t dropped() const {
    std::lock_guard lock(mu_);
    return dropped_;
  }
  /// `lfts` as the switches hold them after the engine ran: the entries apply() wrote get their
  /// default ports back (where they still hold the written port).
  void restore_defaults(const Subnet& f, LftSet& lfts) const;

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const LftOverrides> kept_;
  /// Of the last apply(): per switch, LID -> (written port, default port).
  std::map<Guid, std::map<std::uint16_t, std::pair<PortNum, PortNum>>> applied_;
  std::size_t dropped_ = 0;
};

class GlueLftAccess final : public LftAccess {
 public:
  GlueLftAccess(const GlueServices& glue, KeptLftOverrides& kept) : glue_(glue), kept_(kept) {}
  [[nodiscard]] std::string unavailable_reason() const override;
  void keep(std::shared_ptr<const LftOverrides> overrides) override;
  LftWriteResult write(std::span<const LftBlock> blocks,
                       std::chrono::milliseconds timeout) override;
  std::vector<bool> read(std::span<LftBlock> blocks, std::chrono::milliseconds timeout) override;

 private:
  const GlueServices& glue_;
  KeptLftOverrides& kept_;
};

}  // namespace ibsdn::plugin
