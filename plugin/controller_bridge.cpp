// The extern "C" functions of osmsdn_abi.h: argument checks and the exception barrier between
// the C glue and the controller. Nothing thrown in C++ crosses into OpenSM.
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <span>
#include <stdexcept>
#include <string>

#include "mad/sdn_mad.hpp"
#include "osmsdn_abi.h"
#include "plugin/controller_runtime.hpp"
#include "plugin/options.hpp"

static_assert(OSMSDN_MAD_SIZE == ibsdn::mad::kMadSize);
static_assert(OSMSDN_MGMT_CLASS == ibsdn::mad::kMgmtClass);
static_assert(OSMSDN_CLASS_VERSION == ibsdn::mad::kClassVersion);

struct osmsdn_ctx {
  osmsdn_ctx(const osmsdn_glue_ops& ops, ibsdn::plugin::Options options)
      : controller(ops, std::move(options)) {}
  ibsdn::plugin::Controller controller;
};

namespace {

using ibsdn::plugin::GlueServices;

/// Runs `body`, turning any exception into a status and a log line that names `what`.
template <typename Body>
int guarded(const GlueServices* log, const char* what, Body&& body) noexcept {
  try {
    body();
    return OSMSDN_OK;
  } catch (const std::bad_alloc&) {
    if (log) log->error(std::string(what) + ": out of memory");
    return OSMSDN_ERR_NOMEM;
  } catch (const std::invalid_argument& e) {
    if (log) log->error(std::string(what) + ": " + e.what());
    return OSMSDN_ERR_INVALID;
  } catch (const std::exception& e) {
    if (log) log->error(std::string(what) + ": internal error: " + e.what());
    return OSMSDN_ERR_INTERNAL;
  } catch (...) {
    if (log) log->error(std::string(what) + ": internal error");
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
    log.error("glue ABI version " + std::to_string(abi_version) + ", controller " +
              std::to_string(OSMSDN_ABI_VERSION) + ": rebuild libosmsdn.so as one piece");
    return OSMSDN_ERR_INVALID;
  }
  return guarded(&log, "osmsdn_create", [&] {
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
  guarded(&ctx->controller.glue(), "osmsdn_stop", [&] { ctx->controller.stop(); });
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
  return guarded(&ctx->controller.glue(), "sdn engine",
                 [&] { ctx->controller.compute_lfts(*fabric, std::span(lfts, num_lfts)); });
}

int osmsdn_fabric_updated(osmsdn_ctx* ctx, const osmsdn_fabric* fabric, const osmsdn_lft* lfts,
                          uint32_t num_lfts, const char* engine) {
  if (ctx == nullptr || fabric == nullptr || (num_lfts > 0 && lfts == nullptr)) {
    return OSMSDN_ERR_INVALID;
  }
  return guarded(&ctx->controller.glue(), "subnet up", [&] {
    ctx->controller.fabric_updated(*fabric, std::span(lfts, num_lfts), engine ? engine : "none");
  });
}

void osmsdn_sm_state_changed(osmsdn_ctx* ctx, int state) {
  if (ctx == nullptr) return;
  guarded(&ctx->controller.glue(), "SM state change",
          [&] { ctx->controller.sm_state_changed(state); });
}

void osmsdn_mad_received(osmsdn_ctx* ctx, uint16_t slid, const uint8_t mad[OSMSDN_MAD_SIZE]) {
  if (ctx == nullptr || mad == nullptr) return;
  guarded(&ctx->controller.glue(), "MAD received",
          [&] { ctx->controller.mad_received(ibsdn::Lid(slid), copy_mad(mad)); });
}

void osmsdn_mad_send_failed(osmsdn_ctx* ctx, uint16_t dlid, const uint8_t mad[OSMSDN_MAD_SIZE],
                            int timed_out) {
  if (ctx == nullptr || mad == nullptr) return;
  guarded(&ctx->controller.glue(), "MAD send failed",
          [&] { ctx->controller.mad_failed(ibsdn::Lid(dlid), copy_mad(mad), timed_out != 0); });
}

}  // extern "C"
