// Internal to routing/lft*.cpp: the text forms their messages share.
#pragma once

#include <string>

#include "routing/lft.hpp"

namespace ibsdn::lft_detail {

std::string port_text(PortNum p);
/// "0x0004 (n0003)": a LID and, when the fabric has it, its owner's name.
std::string lid_label(const Fabric& f, const LidMap& lids, Lid lid);

}  // namespace ibsdn::lft_detail
