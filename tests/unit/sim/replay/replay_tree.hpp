// An XGFT with sequential LIDs and its default LFTs (DmodK), the fabric the replay tests run on
// (replay_session_test.cpp, install_backend_test.cpp), and a job's paths traced afresh.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "routing/default_tables.hpp"
#include "routing/lft.hpp"
#include "routing/subnet.hpp"
#include "routing/xgft.hpp"
#include "sim_backend/replay/replay_session.hpp"

namespace ibsdn::test {

struct TreeFabric {
  Subnet subnet;
  LftSet lfts;
  explicit TreeFabric(const std::string& spec) : lfts(make(spec)) {}

  [[nodiscard]] NodeIdx host(std::size_t i) const { return subnet.fabric.hcas().at(i); }

 private:
  LftSet make(const std::string& spec) {
    subnet.fabric = generate_xgft(XgftParams::parse(spec));
    subnet.lids = sequential_lids(subnet.fabric);
    return default_tables(subnet.fabric, subnet.lids).lfts;
  }
};

/// The job's flows traced now, independently of the session's bookkeeping, through the LFTs and
/// what the switches hold (flow entries, LFT entries written).
inline std::vector<Path> fresh_paths(const TreeFabric& t, const ReplaySession& s,
                                     std::uint64_t id) {
  TraceOptions opts;
  opts.override_port = s.forwarding();
  std::vector<Path> out;
  for (const Flow& fl : s.job(id).flows) {
    Trace tr = trace(t.subnet.fabric, t.lfts, fl.src, fl.dst, opts);
    EXPECT_TRUE(tr.ok()) << "job " << id << ": " << tr.error;
    out.push_back(std::move(tr.path));
  }
  return out;
}

}  // namespace ibsdn::test
