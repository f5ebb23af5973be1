// The extern "C" functions of osmsdn_abi.h: argument checks and the exception barrier between
// the C glue and the controller. Nothing thrown in C++ crosses into OpenSM.
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "mad/sdn_mad.hpp"
#include "osmsdn_abi.h"
#include "plugin/controller/log_codes.hpp"
#include "plugin/opensm/controller_runtime.hpp"
#include "plugin/opensm/options.hpp"

static_assert(OSMSDN_MAD_SIZE == ibsdn::mad::kMadSize);
static_assert(OSMSDN_MGMT_CLASS == ibsdn::mad::kMgmtClass);
static_assert(OSMSDN_CLASS_VERSION == ibsdn::mad::kClassVersion);

struct osmsdn_ctx {
  osmsdn_ctx(const osmsdn_glue_ops& ops, ibsdn::plugin::Options options)
      : controller(ops, std::move(options)) {}
  ibsdn::plugin::Controller controller;
};

namespace {

using ibsdn::LogCode;
using ibsdn::plugin::GlueServices;

/// How a failure of an osmsdn_* function is logged: `code` and `what` name the function.
struct Failure {
  const GlueServices* log;
  LogCode code;
  const char* what;
  bool to_syslog = false;

  /// Logs "WHAT: WHY" + detail. Builds the line itself: out of memory loses the line, not OpenSM.
  void operator()(std::string_view why, std::string_view detail = {}) const noexcept {
    try {
      const std::string m = std::string(what) + ": " + std::string(why) + std::string(detail);
      if (to_syslog) {
        log->error_sys(code, m);
      } else {
        log->error(code, m);
      }
    } catch (...) {
    }
  }
};

/// Runs `body`, turning any exception into a status and an error line.
template <typename Body>
int guarded(const Failure& fail, Body&& body) noexcept {
  try {
    body();
    return OSMSDN_OK;
  } catch (const std::bad_alloc&) {
    fail("out of memory");
    return OSMSDN_ERR_NOMEM;
  } catch (const std::invalid_argument& e) {
    fail(e.what());
    return OSMSDN_ERR_INVALID;
  } catch (const std::exception& e) {
    fail("internal error: ", e.what());
    return OSMSDN_ERR_INTERNAL;
  } catch (...) {
    fail("internal error");
    return OSMSDN_ERR_INTERNAL;
  }
}

ibsdn::mad::MadBytes copy_mad(const std::uint8_t* mad) {
  ibsdn::mad::MadBytes bytes{};
  std::memcpy(bytes.data(), mad, bytes.size());
  return bytes;
}

}  // namespace

extern "C" {

int osmsdn_create(uint32_t abi_version, const osmsdn_glue_ops* ops, const char* options,
                  osmsdn_ctx** out) {
  if (ops == nullptr || out == nullptr) return OSMSDN_ERR_INVALID;
  *out = nullptr;
  const GlueServices log(*ops);
  if (abi_version != OSMSDN_ABI_VERSION) {
    log.error_sys(LogCode::kAbiMismatch, "glue ABI version " + std::to_string(abi_version) +
                                             ", controller " + std::to_string(OSMSDN_ABI_VERSION) +
                                             ": rebuild libosmsdn.so as one piece");
    return OSMSDN_ERR_INVALID;
  }
  // A controller that does not start is what administrators must hear of: syslog too.
  return guarded(Failure{&log, LogCode::kCreateFailed, "osmsdn_create", true}, [&] {
    ibsdn::plugin::Options parsed = ibsdn::plugin::parse_options(options ? options : "");
    const std::string settings = parsed.to_string();
    std::unique_ptr<osmsdn_ctx> ctx;
    try {
      ctx = std::make_unique<osmsdn_ctx>(*ops, std::move(parsed));
    } catch (const std::runtime_error& e) {
      // A mistake of the operator's (configuration, state directory, socket path), not a bug.
      throw std::invalid_argument(std::string("cannot start the controller: ") + e.what());
    }
    log.info("controller started (" + settings + ")");
    *out = ctx.release();
  });
}

void osmsdn_stop(osmsdn_ctx* ctx) {
  if (ctx == nullptr) return;
  guarded(Failure{&ctx->controller.glue(), LogCode::kStopFailed, "osmsdn_stop"},
          [&] { ctx->controller.stop(); });
}

void osmsdn_destroy(osmsdn_ctx* ctx) {
  if (ctx == nullptr) return;
  osmsdn_stop(ctx);
  delete ctx;
}

int osmsdn_compute_lfts(osmsdn_ctx* ctx, const osmsdn_fabric* fabric, const osmsdn_lft* lfts,
                        uint32_t num_lfts) {
  if (ctx == nullptr || fabric == nullptr || (num_lfts > 0 && lfts == nullptr)) {
    return OSMSDN_ERR_INVALID;
  }
  return guarded(Failure{&ctx->controller.glue(), LogCode::kEngineFailed, "sdn engine"},
                 [&] { ctx->controller.compute_lfts(*fabric, std::span(lfts, num_lfts)); });
}

int osmsdn_fabric_updated(osmsdn_ctx* ctx, const osmsdn_fabric* fabric, const osmsdn_lft* lfts,
                          uint32_t num_lfts, const char* engine) {
  if (ctx == nullptr || fabric == nullptr || (num_lfts > 0 && lfts == nullptr)) {
    return OSMSDN_ERR_INVALID;
  }
  return guarded(Failure{&ctx->controller.glue(), LogCode::kSubnetUpFailed, "subnet up"}, [&] {
    ctx->controller.fabric_updated(*fabric, std::span(lfts, num_lfts), engine ? engine : "none");
  });
}

void osmsdn_sm_state_changed(osmsdn_ctx* ctx, int state) {
  if (ctx == nullptr) return;
  guarded(Failure{&ctx->controller.glue(), LogCode::kSmStateFailed, "SM state change"},
          [&] { ctx->controller.sm_state_changed(state); });
}

void osmsdn_mad_received(osmsdn_ctx* ctx, uint16_t slid, const uint8_t mad[OSMSDN_MAD_SIZE]) {
  if (ctx == nullptr || mad == nullptr) return;
  guarded(Failure{&ctx->controller.glue(), LogCode::kMadReceivedFailed, "MAD received"},
          [&] { ctx->controller.mad_received(ibsdn::Lid(slid), copy_mad(mad)); });
}

void osmsdn_mad_send_failed(osmsdn_ctx* ctx, uint16_t dlid, const uint8_t mad[OSMSDN_MAD_SIZE],
                            int timed_out) {
  if (ctx == nullptr || mad == nullptr) return;
  guarded(Failure{&ctx->controller.glue(), LogCode::kMadFailureFailed, "MAD send failed"},
          [&] { ctx->controller.mad_failed(ibsdn::Lid(dlid), copy_mad(mad), timed_out != 0); });
}

}  // extern "C"
