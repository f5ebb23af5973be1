#include "common/unique_fd.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <utility>

namespace ibsdn {
namespace {

bool is_open(int fd) {
  return ::fcntl(fd, F_GETFD) != -1;
}

// A pipe's two ends, for descriptors the tests may close.
struct Pipe {
  int r = -1;
  int w = -1;
  Pipe() {
    int fds[2];
    EXPECT_EQ(::pipe(fds), 0);
    r = fds[0];
    w = fds[1];
  }
};

TEST(UniqueFd, ClosesItsDescriptorWhenItGoes) {
  const Pipe p;
  { const UniqueFd fd(p.r); }
  EXPECT_FALSE(is_open(p.r));
  ::close(p.w);
}

TEST(UniqueFd, ReleasedDescriptor_StaysOpen) {
  const Pipe p;
  {
    UniqueFd fd(p.r);
    EXPECT_EQ(fd.release(), p.r);
    EXPECT_EQ(fd.get(), -1);
  }
  EXPECT_TRUE(is_open(p.r));
  ::close(p.r);
  ::close(p.w);
}

TEST(UniqueFd, MovedFrom_OwnsNothingAndTheTargetClosesItsOldOne) {
  const Pipe p;
  UniqueFd a(p.r);
  UniqueFd b(p.w);
  b = std::move(a);
  EXPECT_FALSE(is_open(p.w));
  EXPECT_EQ(b.get(), p.r);
  EXPECT_EQ(a.get(), -1);  // NOLINT(bugprone-use-after-move): the moved-from state is the point
  const UniqueFd c(std::move(b));
  EXPECT_EQ(c.get(), p.r);
  EXPECT_TRUE(is_open(p.r));
}

TEST(UniqueFd, Empty_ClosesNothing) {
  UniqueFd fd;
  EXPECT_EQ(fd.get(), -1);
  fd.reset();
  EXPECT_EQ(fd.get(), -1);
}

}  // namespace
}  // namespace ibsdn
