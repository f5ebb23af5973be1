// The glue's services (osmsdn_glue_ops) as the C++ side uses them: OpenSM's log and the MAD
// channel. Copyable, thread-safe as the glue's functions are.
#pragma once

#include <cstdint>
#include <string>

#include "flowtable/types.hpp"
#include "mad/sdn_mad.hpp"
#include "osmsdn_abi.h"

namespace ibsdn::plugin {

class GlueServices {
 public:
  explicit GlueServices(const osmsdn_glue_ops& ops) : ops_(ops) {}

  void log(osmsdn_log_level level, const std::string& message) const noexcept {
    if (ops_.log != nullptr) ops_.log(ops_.glue, level, message.c_str());
  }
  void error(const std::string& m) const noexcept { log(OSMSDN_LOG_ERROR, m); }
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

  /// OSMSDN_OK or the glue's error code.
  int send_mad(Lid dlid, const mad::MadBytes& bytes) const noexcept {
    if (ops_.send_mad == nullptr) return OSMSDN_ERR_UNAVAILABLE;
    return ops_.send_mad(ops_.glue, dlid.value(), bytes.data());
  }

 private:
  osmsdn_glue_ops ops_;
};

}  // namespace ibsdn::plugin
