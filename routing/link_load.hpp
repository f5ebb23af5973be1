// Load per directed link: flows (single-path link load, thesis 4.3.1), weights (seed 002) and
// volumes (bytes, routing/flow.hpp flow_volume). Utilisation divides a volume by the link's
// capacity: link_seconds() is the time the link needs to carry it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "routing/fabric.hpp"
#include "routing/flow.hpp"

namespace ibsdn {

class LinkLoad {
 public:
  LinkLoad() = default;
  explicit LinkLoad(const Fabric& f) : LinkLoad(f.num_links()) {}
  explicit LinkLoad(std::size_t num_links)
      : flows_(num_links, 0), weight_(num_links, 0.0), volume_(num_links, 0.0) {}

  void add(std::span<const LinkId> path, double weight = 1.0, double volume = 0.0) {
    apply(path, +1, weight, volume);
  }
  void remove(std::span<const LinkId> path, double weight = 1.0, double volume = 0.0) {
    apply(path, -1, -weight, -volume);
  }
  /// Adds the flow's path with its weight and volume.
  void add(std::span<const LinkId> path, const Flow& f) { add(path, f.weight, flow_volume(f)); }
  void remove(std::span<const LinkId> path, const Flow& f) {
    remove(path, f.weight, flow_volume(f));
  }
  void add(const LinkLoad& other);
  /// Adds to one link's counters (copying another fabric's load link by link).
  void add_link(LinkId l, std::int32_t flows, double weight, double volume) {
    flows_[l.value()] += flows;
    weight_[l.value()] += weight;
    volume_[l.value()] += volume;
  }
  void remove(const LinkLoad& other);

  [[nodiscard]] std::int32_t flows(LinkId l) const { return flows_[l.value()]; }
  [[nodiscard]] double weight(LinkId l) const { return weight_[l.value()]; }
  [[nodiscard]] double volume(LinkId l) const { return volume_[l.value()]; }
  /// The largest link_seconds() over the fabric's links.
  [[nodiscard]] double max_seconds(const Fabric& f) const;
  [[nodiscard]] std::int32_t max_flows() const;
  [[nodiscard]] double max_weight() const;
  [[nodiscard]] std::size_t size() const { return flows_.size(); }
  [[nodiscard]] bool empty_load() const;
  [[nodiscard]] const std::vector<std::int32_t>& flow_counts() const { return flows_; }

 private:
  void apply(std::span<const LinkId> path, std::int32_t dflows, double dweight, double dvolume);
  std::vector<std::int32_t> flows_;
  std::vector<double> weight_;
  std::vector<double> volume_;
};

/// The time a link of `gbps` needs to carry `bytes`.
[[nodiscard]] inline double link_seconds(double bytes, double gbps) {
  return gbps > 0.0 ? bytes * 8.0 / (gbps * 1e9) : 0.0;
}

}  // namespace ibsdn
