#include <gtest/gtest.h>

#include <chrono>

#include "plugin/pending_requests.hpp"

namespace ibsdn::plugin {
namespace {

PendingRequest request(std::uint32_t tid, std::uint64_t round, Clock::time_point deadline) {
  PendingRequest r;
  r.tid = tid;
  r.lid = Lid(static_cast<std::uint16_t>(tid & 0xFF));
  r.target = "sw" + std::to_string(tid & 0xFF);
  r.round = round;
  r.deadline = deadline;
  return r;
}

TEST(PendingRequests, TidsStayInTheControllersRangeAndSkipZeroOnWrap) {
  PendingRequests p;
  const std::uint32_t first = p.next_tid();
  EXPECT_EQ(first, PendingRequests::kTidBase | 1u);
  for (std::uint32_t i = 1; i < PendingRequests::kTidCounterMask; ++i) p.next_tid();
  // The counter wrapped: 0 is skipped, so the id is never the bare base.
  EXPECT_EQ(p.next_tid(), PendingRequests::kTidBase | 1u);
}

TEST(PendingRequests, TakeRemovesOnceAndExpiryReturnsOldestFirst) {
  PendingRequests p;
  const auto t0 = Clock::now();
  p.add(request(PendingRequests::kTidBase | 1, 1, t0 + std::chrono::milliseconds(30)));
  p.add(request(PendingRequests::kTidBase | 2, 1, t0 + std::chrono::milliseconds(10)));
  p.add(request(PendingRequests::kTidBase | 3, 2, t0 + std::chrono::milliseconds(50)));
  EXPECT_EQ(p.size(), 3u);
  EXPECT_EQ(p.earliest_deadline(), t0 + std::chrono::milliseconds(10));

  ASSERT_TRUE(p.take(PendingRequests::kTidBase | 3));
  EXPECT_FALSE(p.take(PendingRequests::kTidBase | 3));

  const auto expired = p.take_expired(t0 + std::chrono::milliseconds(40));
  ASSERT_EQ(expired.size(), 2u);
  EXPECT_EQ(expired[0].tid, PendingRequests::kTidBase | 2);
  EXPECT_EQ(expired[1].tid, PendingRequests::kTidBase | 1);
  EXPECT_TRUE(p.empty());
  EXPECT_FALSE(p.earliest_deadline());
}

}  // namespace
}  // namespace ibsdn::plugin
