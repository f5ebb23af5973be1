// Load per directed link: flows (single-path link load, thesis 4.3.1) and weights (seed 002).
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
  explicit LinkLoad(const Fabric& f) : flows_(f.num_links(), 0), weight_(f.num_links(), 0.0) {}
  explicit LinkLoad(std::size_t num_links) : flows_(num_links, 0), weight_(num_links, 0.0) {}

  void add(std::span<const LinkId> path, double weight = 1.0) { apply(path, +1, weight); }
  void remove(std::span<const LinkId> path, double weight = 1.0) { apply(path, -1, -weight); }
  void add(const LinkLoad& other);
  void remove(const LinkLoad& other);

  [[nodiscard]] std::int32_t flows(LinkId l) const { return flows_[l.value()]; }
  [[nodiscard]] double weight(LinkId l) const { return weight_[l.value()]; }
  [[nodiscard]] std::int32_t max_flows() const;
  [[nodiscard]] double max_weight() const;
  [[nodiscard]] std::size_t size() const { return flows_.size(); }
  [[nodiscard]] bool empty_load() const;
  [[nodiscard]] const std::vector<std::int32_t>& flow_counts() const { return flows_; }

 private:
  void apply(std::span<const LinkId> path, std::int32_t dflows, double dweight);
  std::vector<std::int32_t> flows_;
  std::vector<double> weight_;
};

}  // namespace ibsdn
