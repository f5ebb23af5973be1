#include "mad/agent/node_info.hpp"

#include <infiniband/mad.h>

#include <cerrno>
#include <cstring>

namespace ibsdn::mad {

std::variant<int, std::string> query_local_num_ports(const std::string& ca, int port) {
  std::string name = ca;
  int classes[] = {IB_SMI_CLASS, IB_SMI_DIRECT_CLASS};
  errno = 0;
  ibmad_port* smi = mad_rpc_open_port(name.empty() ? nullptr : name.data(), port, classes, 2);
  if (!smi) {
    return std::string("mad_rpc_open_port() failed: ") +
           (errno != 0 ? std::strerror(errno) : "unknown error");
  }
  ib_portid_t self{};  // LID 0 and an empty path: the local node
  std::uint8_t data[IB_SMP_DATA_SIZE] = {};
  constexpr unsigned kTimeoutMs = 1000;
  const bool ok = smp_query_via(data, &self, IB_ATTR_NODE_INFO, 0, kTimeoutMs, smi) != nullptr;
  mad_rpc_close_port(smi);
  if (!ok) return std::string("NodeInfo SMP to the local node got no answer");
  const auto n = static_cast<int>(mad_get_field(data, 0, IB_NODE_NPORTS_F));
  if (n < 1 || n > 254) return "NodeInfo:NumPorts " + std::to_string(n) + " is out of range";
  return n;
}

}  // namespace ibsdn::mad
