// The glue's services (osmsdn_glue_ops) as the C++ side uses them: OpenSM's log and the MAD
// channel. Copyable, thread-safe as the glue's functions are.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "flowtable/types.hpp"
#include "mad/sdn_mad.hpp"
#include "osmsdn_abi.h"
#include "plugin/controller/log_codes.hpp"

namespace ibsdn::plugin {

class GlueServices {
 public:
  explicit GlueServices(const osmsdn_glue_ops& ops) : ops_(ops) {}

  void log(osmsdn_log_level level, const std::string& message) const noexcept {
    if (ops_.log != nullptr) ops_.log(ops_.glue, level, message.c_str());
  }
  /// "ERR 5Dxx: message" (controller/log_codes.hpp). An exception in building the line (out of
  /// memory) loses the line, not the caller.
  void error(LogCode code, const std::string& m) const noexcept {
    log_line(OSMSDN_LOG_ERROR, code, m);
  }
  /// An error the administrator must see even without reading OpenSM's log: also to syslog.
  void error_sys(LogCode code, const std::string& m) const noexcept {
    log_line(OSMSDN_LOG_ERROR_SYS, code, m);
  }
  /// OpenSM 3.3.23 has no warning level: warnings go out at INFO, marked "warning: " (the one
  /// place that marks them; docs/operations.md, "Log messages", tells operators how to find them).
  void warning(const std::string& m) const noexcept {
    try {
      log(OSMSDN_LOG_INFO, "warning: " + m);
    } catch (...) {
    }
  }
  void info(const std::string& m) const noexcept { log(OSMSDN_LOG_INFO, m); }
  void verbose(const std::string& m) const noexcept { log(OSMSDN_LOG_VERBOSE, m); }
  void debug(const std::string& m) const noexcept { log(OSMSDN_LOG_DEBUG, m); }

  /// OpenSM's SM state now (enum osmsdn_sm_state); without the glue function always master.
  [[nodiscard]] int sm_state() const noexcept {
    return ops_.sm_state == nullptr ? OSMSDN_SM_MASTER : ops_.sm_state(ops_.glue);
  }
  /// An SM state as OpenSM names it in its log.
  [[nodiscard]] static const char* sm_state_name(int state) noexcept {
    switch (state) {
      case OSMSDN_SM_NOTACTIVE:
        return "NOT ACTIVE";
      case OSMSDN_SM_DISCOVERING:
        return "DISCOVERING";
      case OSMSDN_SM_STANDBY:
        return "STANDBY";
      case OSMSDN_SM_MASTER:
        return "MASTER";
      default:
        return "unknown";
    }
  }
  /// The port GUID opensm was started on (--guid); 0 when opensm chooses.
  [[nodiscard]] std::uint64_t sm_port_guid() const noexcept { return ops_.sm_port_guid; }

  /// Whether the glue writes and reads LFT blocks (lft_write / lft_read).
  [[nodiscard]] bool has_lft() const noexcept {
    return ops_.lft_write != nullptr && ops_.lft_read != nullptr;
  }
  /// osmsdn_glue_ops.lft_write / lft_read over vectors of the same length.
  int lft_write(const std::vector<osmsdn_lft_block>& blocks, std::uint32_t timeout_ms,
                std::vector<std::uint8_t>& confirmed) const noexcept {
    if (ops_.lft_write == nullptr) return OSMSDN_ERR_UNAVAILABLE;
    return ops_.lft_write(ops_.glue, blocks.data(), static_cast<std::uint32_t>(blocks.size()),
                          timeout_ms, confirmed.data());
  }
  int lft_read(std::vector<osmsdn_lft_block>& blocks, std::uint32_t timeout_ms,
               std::vector<std::uint8_t>& answered) const noexcept {
    if (ops_.lft_read == nullptr) return OSMSDN_ERR_UNAVAILABLE;
    return ops_.lft_read(ops_.glue, blocks.data(), static_cast<std::uint32_t>(blocks.size()),
                         timeout_ms, answered.data());
  }

  /// OSMSDN_OK or the glue's error code.
  int send_mad(Lid dlid, const mad::MadBytes& bytes) const noexcept {
    if (ops_.send_mad == nullptr) return OSMSDN_ERR_UNAVAILABLE;
    return ops_.send_mad(ops_.glue, dlid.value(), bytes.data());
  }

 private:
  void log_line(osmsdn_log_level level, LogCode code, const std::string& m) const noexcept {
    try {
      log(level, error_line(code, m));
    } catch (...) {
    }
  }

  osmsdn_glue_ops ops_;
};

}  // namespace ibsdn::plugin
