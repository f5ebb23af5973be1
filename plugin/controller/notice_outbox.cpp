#include "plugin/controller/notice_outbox.hpp"

#include <unistd.h>

#include <cerrno>
#include <utility>

namespace ibsdn::notice_detail {

void Outbox::attach_wake_fd(UniqueFd fd) {
  const std::lock_guard lock(mutex_);
  wake_fd_ = std::move(fd);
}

void Outbox::close_wake_fd() {
  // Under the mutex: a Reply racing with us sees `closed_` and leaves the fd alone.
  const std::lock_guard lock(mutex_);
  wake_fd_.reset();
}

void Outbox::consume_wake() const {
  std::uint64_t count = 0;
  while (::read(wake_fd_.get(), &count, sizeof count) < 0 && errno == EINTR) {
  }
}

void Outbox::wake_locked() const {
  const std::uint64_t one = 1;
  // EAGAIN means the counter is already far from zero: the thread will wake anyway.
  while (::write(wake_fd_.get(), &one, sizeof one) < 0 && errno == EINTR) {
  }
}

void Outbox::post(Posted p) {
  const std::lock_guard lock(mutex_);
  if (closed_) return;
  posted_.push_back(std::move(p));
  wake_locked();
}

void Outbox::close() {
  const std::lock_guard lock(mutex_);
  if (closed_) return;
  closed_ = true;
  wake_locked();
}

bool Outbox::closed() const {
  const std::lock_guard lock(mutex_);
  return closed_;
}

std::vector<Posted> Outbox::take() {
  std::vector<Posted> posted;
  const std::lock_guard lock(mutex_);
  posted.swap(posted_);
  return posted;
}

ReplyToken::~ReplyToken() {
  if (used_.exchange(true)) return;
  try {
    if (const auto outbox = outbox_.lock()) outbox->post({connection_, request_, {}, true});
  } catch (...) {
    // Out of memory in a destructor: the client's idle timeout does not apply while its
    // request is out, but stop() still closes the connection.
  }
}

void ReplyToken::reply(std::string line) {
  if (used_.exchange(true)) return;
  if (const auto outbox = outbox_.lock()) {
    outbox->post({connection_, request_, std::move(line), false});
  }
}

}  // namespace ibsdn::notice_detail
