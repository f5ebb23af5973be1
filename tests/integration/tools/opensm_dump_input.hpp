// What the integration tests' oracles (osmsdn-lft-check, osmsdn-route-check) read: a file whole,
// and the LFTs OpenSM dumped (-D 0x43 --dump_files_dir DIR) for the fabric of an ibsim netlist.
#pragma once

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "routing/lft.hpp"
#include "routing/netlist.hpp"

namespace ibsdn::tools {

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Fills `f` from the netlist and returns the LFTs of DIR's opensm-lfts.dump and
/// opensm-subnet.lst. Throws, naming the file and line, on anything malformed.
inline LftSet load_netlist_and_dump(const std::string& netlist, const std::string& dump_dir,
                                    Fabric& f) {
  f = parse_netlist(read_file(netlist), netlist);
  const std::string lfts = dump_dir + "/opensm-lfts.dump";
  const std::string subnet = dump_dir + "/opensm-subnet.lst";
  return lfts_from_opensm_dump(f, read_file(lfts), read_file(subnet), lfts, subnet);
}

}  // namespace ibsdn::tools
