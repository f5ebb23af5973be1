#include "routing/path_text.hpp"

namespace ibsdn {

std::vector<SwitchHop> switch_hops(const Fabric& f, const Path& path) {
  std::vector<SwitchHop> out;
  for (const LinkId l : path) {
    const Link& link = f.link(l);
    if (f.node(link.from).is_switch()) out.push_back({link.from, link.from_port});
  }
  return out;
}

std::string path_line(const Fabric& f, NodeIdx src, NodeIdx dst, const Path& path) {
  std::string out = f.node(src).name + ' ' + f.node(dst).name;
  for (const SwitchHop& h : switch_hops(f, path)) {
    out += ' ' + f.node(h.node).name + ':' + std::to_string(h.port.value());
  }
  return out;
}

}  // namespace ibsdn
