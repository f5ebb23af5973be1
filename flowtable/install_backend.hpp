// Where a job's routes go on a switch: the per-flow table of an SDN switch (seed 002's flow
// table, emulated by ibsdn-switch-agent), or the Linear Forwarding Table every InfiniBand switch
// has (one output port per destination LID, written through OpenSM), or nowhere (a dry run).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ibsdn {

enum class InstallBackend : std::uint8_t {
  kAuto,       // flow entries where a switch's agent answers TableInfo, LFT entries elsewhere
  kFlowTable,  // flow entries only; switches without an agent keep the LFT's routes
  kLft,        // LFT entries on every switch (destination-based routes only)
  kDryRun,     // compute and report what `auto` would change; write nothing
};

/// The names the configuration, the notice protocol and ibsdnctl use.
inline constexpr std::string_view kInstallBackendNames = "auto, flow_table, lft, dry_run";

inline std::optional<InstallBackend> parse_install_backend(std::string_view text) {
  if (text == "auto") return InstallBackend::kAuto;
  if (text == "flow_table") return InstallBackend::kFlowTable;
  if (text == "lft") return InstallBackend::kLft;
  if (text == "dry_run") return InstallBackend::kDryRun;
  return std::nullopt;
}

inline std::string_view to_string(InstallBackend b) {
  switch (b) {
    case InstallBackend::kAuto:
      return "auto";
    case InstallBackend::kFlowTable:
      return "flow_table";
    case InstallBackend::kLft:
      return "lft";
    case InstallBackend::kDryRun:
      return "dry_run";
  }
  return "?";
}

}  // namespace ibsdn
