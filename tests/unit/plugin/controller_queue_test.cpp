// Which queue the controller thread takes a notice from (controller_runtime.hpp, Lane).
#include <gtest/gtest.h>

#include "plugin/opensm/controller_runtime.hpp"

namespace ibsdn::plugin {
namespace {

Request start() {
  JobStartRequest r;
  r.job = JobId(1);
  return r;
}
Request audit() {
  return AuditQuery{};
}

constexpr uid_t kSlurm = 64030;
constexpr uid_t kUser = 65534;

TEST(ControllerQueue, TheSchedulersJobNoticesGoFirst) {
  EXPECT_EQ(lane_of(start(), 0, std::nullopt), Lane::kUrgent);
  EXPECT_EQ(lane_of(start(), kSlurm, kSlurm), Lane::kUrgent);
  EXPECT_EQ(lane_of(Request{JobEndRequest{JobId(1)}}, kSlurm, kSlurm), Lane::kUrgent);
}

TEST(ControllerQueue, TheSchedulersQueriesWaitInOrderAndAreNotLimited) {
  EXPECT_EQ(lane_of(audit(), 0, kSlurm), Lane::kNormal);
  EXPECT_EQ(lane_of(audit(), kSlurm, kSlurm), Lane::kNormal);
}

TEST(ControllerQueue, OtherUsersNeverOvertakeTheSchedulerAndTheirSwitchReadsAreLimited) {
  // A user's job notice (refused later unless the user owns the job) waits in order.
  EXPECT_EQ(lane_of(start(), kUser, kSlurm), Lane::kNormal);
  EXPECT_EQ(lane_of(audit(), kUser, kSlurm), Lane::kUserRead);
  FlowsQuery from_switch;
  from_switch.from_switch = true;
  EXPECT_EQ(lane_of(Request{from_switch}, kUser, kSlurm), Lane::kUserRead);
  // Without a Slurm user only root is the scheduler.
  EXPECT_EQ(lane_of(start(), kSlurm, std::nullopt), Lane::kNormal);
}

}  // namespace
}  // namespace ibsdn::plugin
