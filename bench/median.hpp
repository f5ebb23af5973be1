// The median the benchmarks print: the middle of the sorted samples (the upper one of an even
// count), 0 for none.
#pragma once

#include <algorithm>
#include <vector>

namespace ibsdn::bench {

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace ibsdn::bench
