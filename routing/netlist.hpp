// ibsim netlists and `ibnetdiscover` output: one text format family, read and written here.
//
// A record is a header line (`Switch 36 "l1s003" # "l1s003" lid 5`, `Hca 1 "n0001" # "n0001
// HCA-1"`, `Ca ...`) followed by one line per cabled port (`[3] "l2s001"[1]`, ibnetdiscover adds
// `(guid)` parts and `# "desc" lid 7 4xEDR` trailers). A `switchguid=` / `caguid=` line before a
// record fixes that node's GUID; without one, GUIDs follow ibsim's own counters so that the parsed
// GUIDs are the ones ibsim will report.
//
// ibsim facts the exporter relies on (ibsim 0.10): NodeDescription is the quoted string after `#`
// on the header line (else the node id), truncated to 63 bytes; node ids are at most 64 bytes
// and may not contain '#' or '@'; an HCA's port p gets GUID node GUID + p, a switch's ports share
// the node GUID; the first record is where umad2sim clients attach when SIM_HOST is unset.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

#include "common/file_line_error.hpp"
#include "routing/fabric.hpp"

namespace ibsdn {

/// A malformed or inconsistent netlist. what() reads "SOURCE:LINE: what was wrong".
class NetlistError : public FileLineError {
 public:
  using FileLineError::FileLineError;
};

/// Upper bounds that keep a hostile input from exhausting memory.
inline constexpr std::size_t kMaxNetlistNodes = 100'000;
inline constexpr std::size_t kMaxNetlistPorts = 2'000'000;  // summed over all nodes

/// Text that `ibsim -s FILE` loads: every node with its GUID, name and description, every cable
/// from both ends. Throws std::invalid_argument when a name, description or GUID cannot be
/// represented faithfully (ibsim would truncate, reject or duplicate it).
std::string export_ibsim_netlist(const Fabric& f);

/// Parses an ibsim netlist or `ibnetdiscover` output. Node names are the quoted ids (whitespace
/// replaced by '_', the original kept as description). Computes levels, recognises an XGFT
/// (routing/xgft.hpp) or else a dragonfly / megafly (routing/dragonfly.hpp) and sets kind_label to
/// its notation, otherwise to "netlist". A cable whose line names no rate (ibnetdiscover's `4xEDR`;
/// ibsim netlists name none) runs at `unannotated_gbps`. Throws NetlistError naming `source_name`
/// and the offending line.
Fabric parse_netlist(std::string_view text, std::string_view source_name,
                     double unannotated_gbps = 100.0);

}  // namespace ibsdn
