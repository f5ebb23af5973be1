/* Internals shared by the files of the C glue. Only plugin/opensm/glue/ includes this (and OpenSM).
 */
#ifndef OSMSDN_GLUE_H
#define OSMSDN_GLUE_H

/* OpenSM's structures change with its build options (osm_opensm_t has a perfmgr member only
 * under ENABLE_OSM_PERF_MGR), which osm_config.h defines and osm_opensm.h does not include. A
 * file that reads osm_opensm.h first sees a shorter struct: its &osm->lock is another field, and
 * locking that hangs. So every glue file includes this header before any of OpenSM's. */
#if defined(_OSM_OPENSM_H_) || defined(_OSM_SUBNET_H_) || defined(_OSM_MADW_H_) || \
    defined(_OSM_SWITCH_H_) || defined(_OSM_SM_H_) || defined(_OSM_NODE_H_)
#error "include glue.h before OpenSM's headers: their layout depends on osm_config.h"
#endif

#include <pthread.h>
#include <stdint.h>

#include <opensm/osm_config.h>
#include <opensm/osm_opensm.h>
#include <vendor/osm_vendor_api.h>

#include "osmsdn_abi.h"

/* The codes of the glue's error lines, printed as OpenSM prints its own: "ERR 5D01: ..." (see
 * GLUE_ERR). 5D0x is the glue's share of ibsdn's prefix 5D; the C++ side's codes are in
 * plugin/controller/log_codes.hpp, and docs/operations.md ("Log messages") explains them all. */
enum glue_err {
  GLUE_ERR_CREATE_NOMEM = 0x5D01,    /* plugin_create: no memory for the plugin */
  GLUE_ERR_CREATE_FAILED = 0x5D02,   /* plugin_create: the controller did not start */
  GLUE_ERR_UP_NOMEM = 0x5D03,        /* SUBNET UP: no memory for the subnet's copy */
  GLUE_ERR_UP_REFUSED = 0x5D04,      /* SUBNET UP: the controller refused the subnet */
  GLUE_ERR_ENGINE_NOMEM = 0x5D05,    /* routing engine: no memory for the subnet's copy */
  GLUE_ERR_ENGINE_FAILED = 0x5D06,   /* routing engine: no tables; OpenSM falls back */
  GLUE_ERR_ENGINE_REGISTER = 0x5D07, /* the routing engine could not be registered */
  GLUE_ERR_MAD_BIND = 0x5D08,        /* class 0x09 could not be bound */
  GLUE_ERR_LFT_READ = 0x5D09         /* an LFT block could not be asked for (SubnGet) */
};
/* The start of an error line's format; its first argument is the code. */
#define GLUE_ERR "osmsdn: ERR %04X: "

/* The plugin instance: one per opensm process. */
struct osmsdn_glue {
  osm_opensm_t* osm;
  struct osmsdn_ctx* ctx;
  struct osmsdn_glue_ops ops;

  /* Whether this heavy sweep's subnet-up was handed to the controller already (see
   * plugin_report). Touched only on OpenSM's sweep thread, which reports these events. */
  int sweep_reported;

  /* The class 0x09 binding; created at the first SUBNET UP (the SM's port is bound by then). */
  pthread_mutex_t mad_lock;
  osm_bind_handle_t mad_bind;
  unsigned mad_bind_failures;
  uint32_t mad_intact_bytes; /* leading bytes of a received MAD that can be trusted */
};

/* A copy of the subnet in ABI form (owned arrays) and, optionally, its switches' LFTs. */
struct glue_fabric {
  struct osmsdn_fabric view;
  struct osmsdn_node* nodes;
  struct osmsdn_port* ports;
  struct osmsdn_lft* lfts;
  uint32_t num_lfts;
  uint8_t* lft_bytes; /* backing store of the copied LFTs (GLUE_LFT_COPY_CURRENT) */
};

enum glue_lft_mode {
  GLUE_LFT_NONE,         /* no tables */
  GLUE_LFT_NEW_IN_PLACE, /* lfts point into each switch's new_lft (the routing engine fills them) */
  GLUE_LFT_COPY_CURRENT  /* lfts are a copy of what the switches hold now (the lft field) */
};

/* Copies OpenSM's subnet. The caller holds osm->lock (shared is enough for GLUE_LFT_NONE and
 * GLUE_LFT_COPY_CURRENT). Returns 0, or -1 when out of memory (out is then empty). */
int glue_fabric_capture(osm_opensm_t* osm, enum glue_lft_mode mode, struct glue_fabric* out);
void glue_fabric_free(struct glue_fabric* f);

/* Registers the "sdn" routing engine. 0 on success. */
int glue_register_routing_engine(struct osmsdn_glue* g);

/* The MAD channel for class 0x09 through OpenSM's vendor layer. */
void glue_mad_init(struct osmsdn_glue* g);
/* Binds if not yet bound; called on the sweep thread at SUBNET UP. */
void glue_mad_ensure_bound(struct osmsdn_glue* g);
/* osmsdn_glue_ops.send_mad. */
int glue_mad_send(void* glue, uint16_t dlid, const uint8_t mad[OSMSDN_MAD_SIZE]);
/* Unbinds: after it returns the vendor layer calls none of our callbacks. */
void glue_mad_shutdown(struct osmsdn_glue* g);

/* osmsdn_glue_ops.lft_write / lft_read (lft_access.c). */
int glue_lft_write(void* glue, const struct osmsdn_lft_block* blocks, uint32_t n,
                   uint32_t timeout_ms, uint8_t* confirmed);
int glue_lft_read(void* glue, struct osmsdn_lft_block* blocks, uint32_t n, uint32_t timeout_ms,
                  uint8_t* answered);

/* osmsdn_glue_ops.log. */
void glue_log(void* glue, enum osmsdn_log_level level, const char* message);

#endif /* OSMSDN_GLUE_H */
