/* The controller's MAD channel: class 0x09 requests through OpenSM's vendor layer (the same
 * umad port and agent table as the SM, so it works unchanged under ibsim's umad2sim).
 *
 * Threads: glue_mad_send runs on the controller's thread; the two callbacks run on the vendor's
 * receiver thread (and the error callback also inside osm_vendor_send when a send fails at once),
 * always under the vendor's callback mutex. They only copy 256 bytes into the controller's
 * queue, so they never hold up OpenSM's MAD processing. */
#include "glue.h"

#include <inttypes.h>
#include <string.h>

#include <iba/ib_types.h>
#include <opensm/osm_log.h>
#include <opensm/osm_mad_pool.h>
#include <opensm/osm_madw.h>

/* How many bind failures are logged; the bind is retried at every SUBNET UP regardless. */
#define GLUE_BIND_FAILURES_LOGGED 3u

/* ibsim's umad2sim (the libibumad shim, device "ibsim0") receives a MAD into a buffer 32 bytes
 * too short: bytes 224-255 of what it hands up are heap garbage. They are zeroed here, so the
 * controller sees what a responder that knows this (mad/transport.hpp) meant to send. */
#define GLUE_UMAD2SIM_INTACT_BYTES 224u

static void copy_mad(const osm_madw_t* madw, uint32_t intact, uint8_t out[OSMSDN_MAD_SIZE]) {
  uint32_t n = madw->mad_size < intact ? madw->mad_size : intact;
  memset(out, 0, OSMSDN_MAD_SIZE);
  if (madw->p_mad) memcpy(out, madw->p_mad, n);
}

/* A MAD for our agent arrived: with umad, a response matched to `req_madw` by its TID. Both
 * wrappers are ours to return to the pool. */
static void mad_recv_callback(osm_madw_t* madw, void* bind_context, osm_madw_t* req_madw) {
  struct osmsdn_glue* g = bind_context;
  uint8_t bytes[OSMSDN_MAD_SIZE];
  copy_mad(madw, g->mad_intact_bytes, bytes);
  /* For a received MAD the vendor layer stores the sender's LID in dest_lid. */
  osmsdn_mad_received(g->ctx, cl_ntoh16(madw->mad_addr.dest_lid), bytes);
  if (req_madw) osm_mad_pool_put(&g->osm->mad_pool, req_madw);
  osm_mad_pool_put(&g->osm->mad_pool, madw);
}

/* A request of ours completed without a response (timeout, no route, no agent, send error).
 * The wrapper is ours to return to the pool. */
static void mad_send_err_callback(void* bind_context, osm_madw_t* req_madw) {
  struct osmsdn_glue* g = bind_context;
  uint8_t bytes[OSMSDN_MAD_SIZE];
  /* Our own request, as we built it: not damaged by a receive path. */
  copy_mad(req_madw, OSMSDN_MAD_SIZE, bytes);
  osmsdn_mad_send_failed(g->ctx, cl_ntoh16(req_madw->mad_addr.dest_lid), bytes,
                         req_madw->status == IB_TIMEOUT);
  osm_mad_pool_put(&g->osm->mad_pool, req_madw);
}

void glue_mad_init(struct osmsdn_glue* g) {
  pthread_mutex_init(&g->mad_lock, NULL);
  g->mad_bind = OSM_BIND_INVALID_HANDLE;
  g->mad_bind_failures = 0;
  g->mad_intact_bytes = OSMSDN_MAD_SIZE;
}

void glue_mad_ensure_bound(struct osmsdn_glue* g) {
  osm_opensm_t* osm = g->osm;
  pthread_mutex_lock(&g->mad_lock);
  if (g->mad_bind == OSM_BIND_INVALID_HANDLE) {
    osm_bind_info_t bind_info;
    memset(&bind_info, 0, sizeof(bind_info));
    bind_info.port_guid = osm->subn.sm_port_guid;
    bind_info.mad_class = OSMSDN_MGMT_CLASS;
    bind_info.class_version = OSMSDN_CLASS_VERSION;
    /* A requester only: no method is registered, so umad passes up just the responses to our
     * own requests. */
    bind_info.is_responder = FALSE;
    bind_info.is_trap_processor = FALSE;
    bind_info.is_report_processor = FALSE;
    bind_info.timeout = osm->subn.opt.transaction_timeout;
    bind_info.retries = osm->subn.opt.transaction_retries;
    /* The vendor layer opened its umad port when the SM bound; its CA name tells ibsim's
     * simulated device apart. Set before the bind, so before any callback can read it. */
    if (strncmp(osm->p_vendor->umad_port.ca_name, "ibsim", 5) == 0) {
      g->mad_intact_bytes = GLUE_UMAD2SIM_INTACT_BYTES;
    }
    g->mad_bind = osm_vendor_bind(osm->p_vendor, &bind_info, &osm->mad_pool, mad_recv_callback,
                                  mad_send_err_callback, g);
    if (g->mad_bind != OSM_BIND_INVALID_HANDLE) {
      OSM_LOG(&osm->log, OSM_LOG_INFO,
              "osmsdn: bound MAD class 0x%02x version %u on port 0x%016" PRIx64 "\n",
              OSMSDN_MGMT_CLASS, OSMSDN_CLASS_VERSION, cl_ntoh64(bind_info.port_guid));
    } else if (g->mad_bind_failures++ < GLUE_BIND_FAILURES_LOGGED) {
      OSM_LOG(&osm->log, OSM_LOG_ERROR,
              GLUE_ERR "cannot bind MAD class 0x%02x on port 0x%016" PRIx64
                       "; switches will not be reached\n",
              GLUE_ERR_MAD_BIND, OSMSDN_MGMT_CLASS, cl_ntoh64(bind_info.port_guid));
    }
  }
  pthread_mutex_unlock(&g->mad_lock);
}

int glue_mad_send(void* glue, uint16_t dlid, const uint8_t mad[OSMSDN_MAD_SIZE]) {
  struct osmsdn_glue* g = glue;
  pthread_mutex_lock(&g->mad_lock);
  osm_bind_handle_t bind = g->mad_bind;
  pthread_mutex_unlock(&g->mad_lock);
  /* The handle stays valid after the unlock: only plugin_delete unbinds, and it does so after
   * the controller's thread (the only caller) has stopped. */
  if (bind == OSM_BIND_INVALID_HANDLE) return OSMSDN_ERR_UNAVAILABLE;

  /* A GMP: LID-routed to the GSI (QP 1) of the destination. The vendor layer fills in the
   * well-known Q_Key itself; P_Key index 0 is the default partition. */
  osm_mad_addr_t addr;
  memset(&addr, 0, sizeof(addr));
  addr.dest_lid = cl_hton16(dlid);
  addr.addr_type.gsi.remote_qp = IB_QP1;
  addr.addr_type.gsi.remote_qkey = IB_QP1_WELL_KNOWN_Q_KEY;
  addr.addr_type.gsi.pkey_ix = 0;
  addr.addr_type.gsi.service_level = 0;

  osm_madw_t* madw = osm_mad_pool_get(&g->osm->mad_pool, bind, MAD_BLOCK_SIZE, &addr);
  if (!madw) return OSMSDN_ERR_SEND;
  memcpy(osm_madw_get_mad_ptr(madw), mad, OSMSDN_MAD_SIZE);
  madw->resp_expected = TRUE;
  /* On failure the vendor layer has already handed the wrapper to mad_send_err_callback. */
  if (osm_vendor_send(bind, madw, TRUE) != IB_SUCCESS) return OSMSDN_ERR_SEND;
  return OSMSDN_OK;
}

void glue_mad_shutdown(struct osmsdn_glue* g) {
  pthread_mutex_lock(&g->mad_lock);
  if (g->mad_bind != OSM_BIND_INVALID_HANDLE) {
    osm_vendor_unbind(g->mad_bind);
    g->mad_bind = OSM_BIND_INVALID_HANDLE;
  }
  pthread_mutex_unlock(&g->mad_lock);
}
