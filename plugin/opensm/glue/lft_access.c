/* The LFT backend's hands: writing and reading 64-entry blocks of the switches' linear forwarding
 * tables through OpenSM, for the controller's thread (osmsdn_glue_ops.lft_write / lft_read).
 *
 * Writing goes the way OpenSM's own routing does: the block goes into the switch's new_lft (the
 * routing engine's table, which OpenSM compares with lft, what it last knew the switch to hold)
 * and osm_ucast_mgr_set_fwd_tables() sends every block that differs (SubnSet), zeroing the block
 * in lft until the switch's answer writes it there (osm_lin_fwd_rcv.c). So a block is confirmed
 * once lft holds it as written. Reading is a SubnGet whose answer OpenSM's receiver also writes
 * into lft; the block is zeroed first, so a block still zero at the deadline was not answered (a
 * real block is never all port 0: only a switch's own LIDs lead to port 0).
 *
 * The waits poll lft under the shared lock every millisecond; they never wait on OpenSM's
 * statistics condition, whose single signal its state manager needs. */
#include "glue.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#include <complib/cl_passivelock.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_sm.h>
#include <opensm/osm_switch.h>
#include <opensm/osm_ucast_mgr.h>

_Static_assert(OSMSDN_LFT_BLOCK_SIZE == IB_SMP_DATA_SIZE, "an LFT block is one SMP's data");

static uint64_t now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

static void sleep_ms(unsigned ms) {
  struct timespec t = {0, (long)ms * 1000000L};
  while (nanosleep(&t, &t) != 0 && errno == EINTR) {
  }
}

/* The switch and the offset of `b` in its tables, or NULL when the block does not fit them. */
static osm_switch_t* block_switch(osm_opensm_t* osm, const struct osmsdn_lft_block* b,
                                  size_t* offset) {
  osm_switch_t* sw = osm_get_switch_by_guid(&osm->subn, cl_hton64(b->switch_guid));
  if (!sw || !sw->lft) return NULL;
  *offset = (size_t)b->block * IB_SMP_DATA_SIZE;
  if (*offset + IB_SMP_DATA_SIZE > sw->lft_size) return NULL;
  return sw;
}

/* OpenSM's lock, for at most `ms`: the controller's thread must never wait on OpenSM without a
 * bound (a sweep holds the lock while it routes). 0 when taken. */
static int lock_within(osm_opensm_t* osm, int exclusive, unsigned ms) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += (time_t)(ms / 1000u);
  until.tv_nsec += (long)(ms % 1000u) * 1000000L;
  if (until.tv_nsec >= 1000000000L) {
    until.tv_sec += 1;
    until.tv_nsec -= 1000000000L;
  }
  return exclusive ? pthread_rwlock_timedwrlock(&osm->lock.lock, &until)
                   : pthread_rwlock_timedrdlock(&osm->lock.lock, &until);
}

static int is_master(osm_opensm_t* osm) {
  return __atomic_load_n(&osm->subn.sm_state, __ATOMIC_RELAXED) == IB_SMINFO_STATE_MASTER;
}

/* Polls until every block marked pending satisfies `done` or the deadline passes. */
static void wait_blocks(osm_opensm_t* osm, const struct osmsdn_lft_block* blocks, uint32_t n,
                        uint8_t* result, uint32_t timeout_ms,
                        int (*done)(const osm_switch_t*, size_t, const uint8_t*)) {
  const uint64_t deadline = now_ms() + timeout_ms;
  for (;;) {
    uint32_t open = 0;
    if (lock_within(osm, 0, timeout_ms) != 0) return;
    for (uint32_t i = 0; i < n; ++i) {
      size_t off = 0;
      const osm_switch_t* sw = block_switch(osm, &blocks[i], &off);
      result[i] = sw && done(sw, off, blocks[i].ports) ? 1 : 0;
      open += !result[i];
    }
    cl_plock_release(&osm->lock);
    if (open == 0 || now_ms() >= deadline || osm_exit_flag) return;
    sleep_ms(1);
  }
}

static int written(const osm_switch_t* sw, size_t off, const uint8_t* ports) {
  return memcmp(sw->lft + off, ports, IB_SMP_DATA_SIZE) == 0;
}

static int answered(const osm_switch_t* sw, size_t off, const uint8_t* ports) {
  static const uint8_t zero[IB_SMP_DATA_SIZE];
  (void)ports;
  return memcmp(sw->lft + off, zero, IB_SMP_DATA_SIZE) != 0;
}

int glue_lft_write(void* glue, const struct osmsdn_lft_block* blocks, uint32_t n,
                   uint32_t timeout_ms, uint8_t* confirmed) {
  struct osmsdn_glue* g = glue;
  osm_opensm_t* osm = g->osm;
  memset(confirmed, 0, n);
  if (!is_master(osm)) return OSMSDN_ERR_UNAVAILABLE;
  if (lock_within(osm, 1, timeout_ms) != 0) return OSMSDN_ERR_UNAVAILABLE;
  uint32_t placed = 0;
  for (uint32_t i = 0; i < n; ++i) {
    size_t off = 0;
    osm_switch_t* sw = block_switch(osm, &blocks[i], &off);
    if (!sw || !sw->new_lft) continue;
    memcpy(sw->new_lft + off, blocks[i].ports, IB_SMP_DATA_SIZE);
    ++placed;
  }
  /* Sends only the blocks whose new_lft differs from lft, on every switch. */
  if (placed > 0) osm_ucast_mgr_set_fwd_tables(&osm->sm.ucast_mgr);
  cl_plock_release(&osm->lock);
  wait_blocks(osm, blocks, n, confirmed, timeout_ms, written);
  return OSMSDN_OK;
}

int glue_lft_read(void* glue, struct osmsdn_lft_block* blocks, uint32_t n, uint32_t timeout_ms,
                  uint8_t* answered_out) {
  struct osmsdn_glue* g = glue;
  osm_opensm_t* osm = g->osm;
  memset(answered_out, 0, n);
  if (!is_master(osm)) return OSMSDN_ERR_UNAVAILABLE;
  if (lock_within(osm, 1, timeout_ms) != 0) return OSMSDN_ERR_UNAVAILABLE;
  for (uint32_t i = 0; i < n; ++i) {
    size_t off = 0;
    osm_switch_t* sw = block_switch(osm, &blocks[i], &off);
    if (!sw) continue;
    osm_physp_t* p = osm_node_get_physp_ptr(sw->p_node, 0);
    if (!p) continue;
    osm_madw_context_t context;
    memset(&context, 0, sizeof(context));
    context.lft_context.node_guid = osm_node_get_node_guid(sw->p_node);
    context.lft_context.set_method = FALSE;
    /* As OpenSM does before a Set: a zero block in lft means "not known"; a sweep meanwhile
     * sends new_lft's block again, which is what the switch should hold anyway. */
    memset(sw->lft + off, 0, IB_SMP_DATA_SIZE);
    ib_api_status_t st = osm_req_get(
        &osm->sm, osm_physp_get_dr_path_ptr(p), IB_MAD_ATTR_LIN_FWD_TBL, cl_hton32(blocks[i].block),
        FALSE, ib_port_info_get_m_key(&p->port_info), 0, CL_DISP_MSGID_NONE, &context);
    if (st != IB_SUCCESS) {
      OSM_LOG(&osm->log, OSM_LOG_ERROR,
              GLUE_ERR "reading LFT block %u of switch 0x%016" PRIx64 " failed (%s)\n",
              GLUE_ERR_LFT_READ, (unsigned)blocks[i].block, blocks[i].switch_guid,
              ib_get_err_str(st));
    }
  }
  cl_plock_release(&osm->lock);
  wait_blocks(osm, blocks, n, answered_out, timeout_ms, answered);
  if (lock_within(osm, 0, timeout_ms) != 0) {
    memset(answered_out, 0, n);
    return OSMSDN_OK;
  }
  for (uint32_t i = 0; i < n; ++i) {
    size_t off = 0;
    const osm_switch_t* sw = block_switch(osm, &blocks[i], &off);
    if (sw && answered_out[i]) memcpy(blocks[i].ports, sw->lft + off, IB_SMP_DATA_SIZE);
  }
  cl_plock_release(&osm->lock);
  return OSMSDN_OK;
}
