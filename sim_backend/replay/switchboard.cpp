#include "sim_backend/replay/switchboard.hpp"

#include <algorithm>
#include <cerrno>

namespace ibsdn {

Switchboard::Switchboard(const Fabric& f, const LidMap& lids, std::uint64_t key,
                         FlowTableConfig table)
    : by_node_(f.num_nodes()), by_lid_(static_cast<std::size_t>(lids.max_lid().value()) + 1) {
  for (const NodeIdx sw : f.switches()) {
    mad::ResponderConfig cfg;
    cfg.key = key;
    cfg.table = table;
    cfg.table.num_ports = static_cast<std::uint8_t>(f.node(sw).ports.size());
    by_node_[sw.value()] = std::make_unique<mad::SwitchResponder>(cfg);
    const Lid lid = lids.lid(sw, PortNum(0));
    if (lid.value() < by_lid_.size()) by_lid_[lid.value()] = by_node_[sw.value()].get();
  }
}

void Switchboard::send(Lid to, std::span<const std::uint8_t> mad, std::chrono::milliseconds) {
  ++sent_;
  mad::ReceivedMad in;
  std::copy_n(mad.begin(), std::min(mad.size(), in.bytes.size()), in.bytes.begin());
  in.length = mad::kMadSize;
  in.from = to;
  mad::SwitchResponder* agent = to.value() < by_lid_.size() ? by_lid_[to.value()] : nullptr;
  if (agent == nullptr) {
    in.status = ETIMEDOUT;  // handed back undelivered, as ibsim does
  } else {
    const mad::Handled h = agent->handle(mad);
    if (!h.reply) return;
    in.bytes = *h.reply;
  }
  inbox_.push_back(in);
}

std::optional<mad::ReceivedMad> Switchboard::receive(std::chrono::milliseconds) {
  if (inbox_.empty()) return std::nullopt;
  mad::ReceivedMad m = inbox_.front();
  inbox_.pop_front();
  return m;
}

std::size_t Switchboard::entries() const {
  std::size_t n = 0;
  for (const auto& agent : by_node_) {
    if (agent) n += agent->table().size();
  }
  return n;
}

ForwardingOverride Switchboard::forwarding() {
  return [this](NodeIdx sw, const PacketHeader& h) -> std::optional<PortNum> {
    mad::SwitchResponder* agent =
        sw.value() < by_node_.size() ? by_node_[sw.value()].get() : nullptr;
    if (agent == nullptr) return std::nullopt;
    const std::optional<FlowAction> a = agent->table().lookup(h);
    if (!a) return std::nullopt;
    return a->output;
  };
}

}  // namespace ibsdn
