#include "routing/default_tables.hpp"

#include "routing/algorithm.hpp"
#include "routing/dragonfly.hpp"
#include "routing/fat_tree.hpp"

namespace ibsdn {

std::string recognize_topology(Fabric& f) {
  std::string why;
  if (std::string label = fat_tree_label(f, &why); !label.empty()) return label;
  std::string df_why;
  if (recognize_dragonfly(f, &df_why)) {
    return df_why.empty() ? f.kind_label : f.kind_label + ", " + df_why;
  }
  return "not a fat-tree: " + why + "; not a dragonfly: " + df_why;
}

DefaultTables default_tables(Fabric& f, const LidMap& lids) {
  DefaultTables out;
  out.topology = recognize_topology(f);
  out.algorithm = f.fat_tree() != nullptr ? "dmodk" : "minhop";
  const auto alg = make_algorithm(out.algorithm);
  if (f.hcas().empty()) {
    out.lfts = LftSet(f);
    out.lfts.lids = lids;
    complete_lfts(f, out.lfts);
  } else {
    out.lfts = lfts_per_destination(f, lids, *alg);
  }
  return out;
}

}  // namespace ibsdn
