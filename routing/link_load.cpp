#include "routing/link_load.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace ibsdn {

void LinkLoad::apply(std::span<const LinkId> path, std::int32_t dflows, double dweight,
                     double dvolume) {
  for (LinkId l : path) {
    flows_[l.value()] += dflows;
    weight_[l.value()] += dweight;
    volume_[l.value()] += dvolume;
    assert(flows_[l.value()] >= 0);
  }
}

void LinkLoad::add(const LinkLoad& other) {
  assert(other.size() == size());
  for (std::size_t i = 0; i < flows_.size(); ++i) {
    flows_[i] += other.flows_[i];
    weight_[i] += other.weight_[i];
    volume_[i] += other.volume_[i];
  }
}

void LinkLoad::remove(const LinkLoad& other) {
  assert(other.size() == size());
  for (std::size_t i = 0; i < flows_.size(); ++i) {
    flows_[i] -= other.flows_[i];
    weight_[i] -= other.weight_[i];
    volume_[i] -= other.volume_[i];
    // Weights are sums of reciprocals: clear rounding residue once no flow is left.
    if (flows_[i] == 0) weight_[i] = volume_[i] = 0.0;
  }
}

std::int32_t LinkLoad::max_flows() const {
  return flows_.empty() ? 0 : *std::max_element(flows_.begin(), flows_.end());
}

double LinkLoad::max_weight() const {
  return weight_.empty() ? 0.0 : *std::max_element(weight_.begin(), weight_.end());
}

double LinkLoad::max_seconds(const Fabric& f) const {
  double best = 0.0;
  for (std::size_t i = 0; i < volume_.size(); ++i)
    best = std::max(best, link_seconds(volume_[i], f.link(LinkId(i)).gbps));
  return best;
}

bool LinkLoad::empty_load() const {
  return std::all_of(flows_.begin(), flows_.end(), [](std::int32_t v) { return v == 0; });
}

}  // namespace ibsdn
