// Three-level fat-trees built of pods, as CODES builds them (thesis 4.4: TraceR-CODES' 1024-node
// full and 1536-node 3:1 tapered trees) and many production trees are cabled: in a pod every leaf
// is cabled to every aggregate switch, and every top switch to every aggregate switch of every
// pod. Not an XGFT (an XGFT top reaches one aggregate per pod), so a top has a choice of ports
// down into a pod; the fat-tree layout (routing/fat_tree.hpp) and its algorithms route it.
#pragma once

#include <string>
#include <string_view>

#include "routing/fabric.hpp"

namespace ibsdn {

struct PodTreeParams {
  int pods = 2;
  int leaves = 4;       // per pod
  int hosts = 4;        // per leaf
  int aggregates = 4;   // per pod
  int tops = 4;         // 0: a two-level tree of pods
  int leaf_cables = 1;  // parallel cables between a leaf and an aggregate
  int top_cables = 1;   // parallel cables between an aggregate and a top
  double host_gbps = 100.0;
  double leaf_gbps = 100.0;  // per leaf-aggregate cable
  double top_gbps = 100.0;   // per aggregate-top cable

  /// Parses "pods,leaves,hosts,aggregates,tops" (a "pod-tree(...)" wrapper is optional); one
  /// cable per pair. Throws std::invalid_argument naming the offending value.
  static PodTreeParams parse(std::string_view text);
  /// Throws std::invalid_argument when a count is out of range or a switch would need more
  /// than 254 ports.
  void validate() const;
  [[nodiscard]] std::string to_string() const;  // "pod-tree(4,16,24,8,16)"
};

/// Leaves: host ports first, then their up cables, aggregate by aggregate; aggregates: leaf
/// cables first, then tops; tops: aggregate by aggregate, pod by pod (CODES' port order). Names
/// n1.. (hosts, leaf by leaf), p1l2 (pod 1, leaf 2), p1a3 (aggregate), t4 (top). Recognised as a
/// fat-tree, labelled with to_string(). Links between switches at the given rates.
Fabric generate_pod_tree(const PodTreeParams& p, int gpus_per_node = 1);

}  // namespace ibsdn
