#include "mad/loopback_transport.hpp"

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <unordered_map>

namespace ibsdn::mad {

struct LoopbackTransport::Inbox {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<ReceivedMad> queue;

  void push(ReceivedMad m) {
    {
      std::lock_guard lock(mu);
      queue.push_back(std::move(m));
    }
    cv.notify_one();
  }
};

struct LoopbackFabric::Switchboard {
  std::size_t intact_bytes = kMadSize;
  std::mutex mu;
  std::unordered_map<Lid, std::shared_ptr<LoopbackTransport::Inbox>> at;
};

LoopbackFabric::LoopbackFabric(std::size_t intact_bytes) : board_(std::make_shared<Switchboard>()) {
  board_->intact_bytes = std::min(intact_bytes, kMadSize);
}
LoopbackFabric::~LoopbackFabric() = default;

std::unique_ptr<LoopbackTransport> LoopbackFabric::attach(Lid lid) {
  auto inbox = std::make_shared<LoopbackTransport::Inbox>();
  {
    std::lock_guard lock(board_->mu);
    if (!board_->at.emplace(lid, inbox).second) {
      throw TransportError("loopback: LID " + std::to_string(lid.value()) + " is already attached");
    }
  }
  return std::unique_ptr<LoopbackTransport>(new LoopbackTransport(board_, lid, std::move(inbox)));
}

LoopbackTransport::LoopbackTransport(std::shared_ptr<LoopbackFabric::Switchboard> board, Lid lid,
                                     std::shared_ptr<Inbox> inbox)
    : board_(std::move(board)), lid_(lid), inbox_(std::move(inbox)) {}

LoopbackTransport::~LoopbackTransport() {
  std::lock_guard lock(board_->mu);
  board_->at.erase(lid_);
}

void LoopbackTransport::send(Lid to, std::span<const std::uint8_t> mad,
                             std::chrono::milliseconds /*response_timeout*/) {
  if (mad.size() > kMadSize) {
    throw TransportError("loopback: MAD of " + std::to_string(mad.size()) + " bytes (max 256)");
  }
  ReceivedMad m;
  std::copy_n(mad.begin(), std::min(mad.size(), board_->intact_bytes), m.bytes.begin());
  m.length = mad.size();
  m.from = lid_;
  std::shared_ptr<Inbox> dest;
  {
    std::lock_guard lock(board_->mu);
    if (auto it = board_->at.find(to); it != board_->at.end()) dest = it->second;
  }
  if (dest) {
    dest->push(std::move(m));
  } else if (!is_response(mad)) {
    m.status = ETIMEDOUT;
    m.from = to;
    inbox_->push(std::move(m));
  }
}

std::size_t LoopbackTransport::intact_bytes() const {
  return board_->intact_bytes;
}

std::optional<ReceivedMad> LoopbackTransport::receive(std::chrono::milliseconds timeout) {
  std::unique_lock lock(inbox_->mu);
  if (!inbox_->cv.wait_for(lock, timeout, [&] { return !inbox_->queue.empty(); })) {
    return std::nullopt;
  }
  ReceivedMad m = std::move(inbox_->queue.front());
  inbox_->queue.pop_front();
  return m;
}

std::pair<std::unique_ptr<LoopbackTransport>, std::unique_ptr<LoopbackTransport>>
make_loopback_pair(Lid a, Lid b) {
  LoopbackFabric fabric;
  auto ea = fabric.attach(a);
  auto eb = fabric.attach(b);
  return {std::move(ea), std::move(eb)};
}

}  // namespace ibsdn::mad
