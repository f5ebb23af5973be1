#include <gtest/gtest.h>

#include <random>

#include "routing/network_state.hpp"
#include "routing/xgft.hpp"

namespace ibsdn {
namespace {

std::vector<Flow> pairs(const Fabric& f, std::initializer_list<std::pair<int, int>> p) {
  std::vector<Flow> out;
  for (auto [s, d] : p) {
    Flow fl;
    fl.src = f.hcas()[static_cast<std::size_t>(s)];
    fl.dst = f.hcas()[static_cast<std::size_t>(d)];
    out.push_back(fl);
  }
  set_weights(out);
  return out;
}

TEST(NetworkState, SecondJobRoutesAroundTheFirstJobsLoad) {
  // XGFT(2;4,4;1,4): job 1 sends 0->4 and job 2 sends 1->5. Routed alone, both would take
  // spine 0 (lowest digit on a tie); on top of job 1, job 2 must take another spine.
  const Fabric f = generate_xgft(XgftParams::parse("2;4,4;1,4"));
  NetworkState st(f);
  for (const char* alg : {"sdn-greedy", "sdn-optimal", "sdn-optimal-tapered"}) {
    const auto a = make_algorithm(alg);
    st.add_job(JobId(1), pairs(f, {{0, 4}}), *a);
    st.add_job(JobId(2), pairs(f, {{1, 5}}), *a);
    EXPECT_EQ(st.swml_flows(), 1) << alg;
    st.remove_job(JobId(1));
    st.remove_job(JobId(2));
  }
}

TEST(NetworkState, RemovingAJobRemovesExactlyItsLoad) {
  const Fabric f = generate_xgft(XgftParams::parse("3;4,4,3;1,4,4"));
  NetworkState st(f);
  std::mt19937_64 rng(4);
  auto random_job = [&](int n) {
    std::vector<Flow> out;
    for (int i = 0; i < n; ++i) {
      Flow fl;
      fl.src = f.hcas()[rng() % 48];
      do fl.dst = f.hcas()[rng() % 48];
      while (fl.dst == fl.src);
      out.push_back(fl);
    }
    set_weights(out);
    return out;
  };
  const auto greedy = make_algorithm("sdn-greedy");
  const auto optimal = make_algorithm("sdn-optimal");
  st.add_job(JobId(1), random_job(40), *greedy);
  const LinkLoad only_first = st.load();
  st.add_job(JobId(2), random_job(60), *optimal);
  st.add_job(JobId(3), random_job(30), *greedy);
  st.remove_job(JobId(2));
  st.remove_job(JobId(3));
  for (std::size_t l = 0; l < f.num_links(); ++l) {
    ASSERT_EQ(st.load().flows(LinkId(l)), only_first.flows(LinkId(l)));
    ASSERT_NEAR(st.load().weight(LinkId(l)), only_first.weight(LinkId(l)), 1e-9);
  }
  st.remove_job(JobId(1));
  EXPECT_TRUE(st.load().empty_load());
  EXPECT_THROW(st.remove_job(JobId(1)), std::invalid_argument);
}

TEST(NetworkState, DuplicateJobIdIsRefusedAndStateKept) {
  const Fabric f = generate_xgft(XgftParams::parse("2;2,2;1,2"));
  NetworkState st(f);
  const auto a = make_algorithm("dmodk");
  st.add_job(JobId(7), pairs(f, {{0, 2}}), *a);
  EXPECT_THROW(st.add_job(JobId(7), pairs(f, {{1, 3}}), *a), std::invalid_argument);
  EXPECT_EQ(st.job_ids().size(), 1u);
  EXPECT_EQ(st.job(JobId(7))->flows.size(), 1u);
  EXPECT_DOUBLE_EQ(st.pjml(JobId(7)), 1.0);
}

TEST(NetworkState, RestoreRejectsPathsThatDoNotFitTheFabric) {
  const Fabric f = generate_xgft(XgftParams::parse("2;2,2;1,2"));
  NetworkState st(f);
  NetworkState::Job j;
  j.id = JobId(3);
  j.flows = pairs(f, {{0, 2}});
  j.paths = {Path{LinkId(0u)}};
  EXPECT_THROW(st.restore_job(j), std::invalid_argument);
  EXPECT_TRUE(st.job_ids().empty());
}

}  // namespace
}  // namespace ibsdn
