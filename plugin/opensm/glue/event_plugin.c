/* The OpenSM event plugin: the symbol opensm looks up in libosmsdn.so, and its three callbacks.
 * Loaded by opensm.conf's `event_plugin_name osmsdn` (opensm dlopen()s "lib<name>.so", so the
 * directory of libosmsdn.so must be on the loader's search path, e.g. LD_LIBRARY_PATH). */
#include "glue.h"

#include <stdlib.h>
#include <string.h>

#include <complib/cl_passivelock.h>
#include <opensm/osm_event_plugin.h>
#include <opensm/osm_log.h>
#include <opensm/osm_version.h>

_Static_assert(IB_SMINFO_STATE_NOTACTIVE == OSMSDN_SM_NOTACTIVE, "SM state values");
_Static_assert(IB_SMINFO_STATE_DISCOVERING == OSMSDN_SM_DISCOVERING, "SM state values");
_Static_assert(IB_SMINFO_STATE_STANDBY == OSMSDN_SM_STANDBY, "SM state values");
_Static_assert(IB_SMINFO_STATE_MASTER == OSMSDN_SM_MASTER, "SM state values");

void glue_log(void* glue, enum osmsdn_log_level level, const char* message) {
  struct osmsdn_glue* g = glue;
  osm_log_level_t osm_level = OSM_LOG_ERROR;
  switch (level) {
    case OSMSDN_LOG_ERROR:
      osm_level = OSM_LOG_ERROR;
      break;
    case OSMSDN_LOG_ERROR_SYS:
      /* One line in OpenSM's log and one in syslog, as OpenSM reports its own fatal errors. */
      osm_level = OSM_LOG_ERROR | OSM_LOG_SYS;
      break;
    case OSMSDN_LOG_INFO:
      osm_level = OSM_LOG_INFO;
      break;
    case OSMSDN_LOG_VERBOSE:
      osm_level = OSM_LOG_VERBOSE;
      break;
    case OSMSDN_LOG_DEBUG:
      osm_level = OSM_LOG_DEBUG;
      break;
  }
  if (osm_log_is_active(&g->osm->log, osm_level)) {
    osm_log(&g->osm->log, osm_level, "osmsdn: %s\n", message);
  }
}

/* osmsdn_glue_ops.sm_state: OpenSM's state machine writes subn.sm_state on its own threads; one
 * byte, read without its lock, is at worst one transition late (the controller asks again before
 * every action). */
static int glue_sm_state(void* glue) {
  const struct osmsdn_glue* g = glue;
  return (int)__atomic_load_n(&g->osm->subn.sm_state, __ATOMIC_RELAXED);
}

static void* plugin_create(struct osm_opensm* osm) {
  struct osmsdn_glue* g = calloc(1, sizeof(*g));
  if (!g) {
    OSM_LOG(&osm->log, OSM_LOG_ERROR | OSM_LOG_SYS,
            GLUE_ERR "out of memory; OpenSM runs without the plugin\n", GLUE_ERR_CREATE_NOMEM);
    return NULL;
  }
  g->osm = osm;
  glue_mad_init(g);
  g->ops.glue = g;
  g->ops.log = glue_log;
  g->ops.send_mad = glue_mad_send;
  g->ops.sm_state = glue_sm_state;
  g->ops.lft_write = glue_lft_write;
  g->ops.lft_read = glue_lft_read;
  g->ops.sm_port_guid = cl_ntoh64(osm->subn.opt.guid);

  int rc = osmsdn_create(OSMSDN_ABI_VERSION, &g->ops, osm->subn.opt.event_plugin_options, &g->ctx);
  if (rc != OSMSDN_OK) {
    OSM_LOG(&osm->log, OSM_LOG_ERROR | OSM_LOG_SYS,
            GLUE_ERR "controller not created (error %d); OpenSM runs without the plugin\n",
            GLUE_ERR_CREATE_FAILED, rc);
    pthread_mutex_destroy(&g->mad_lock);
    free(g);
    return NULL;
  }
  /* Last: OpenSM offers no way to unregister an engine, so nothing may fail after this. */
  if (glue_register_routing_engine(g) != 0) {
    osmsdn_destroy(g->ctx);
    pthread_mutex_destroy(&g->mad_lock);
    free(g);
    return NULL;
  }
  return g;
}

static void plugin_delete(void* plugin_data) {
  struct osmsdn_glue* g = plugin_data;
  if (!g) return;
  /* Order matters: the controller drains while MAD callbacks can still reach it, then the
   * binding goes (no callback runs after osm_vendor_unbind returns), then the memory. */
  osmsdn_stop(g->ctx);
  glue_mad_shutdown(g);
  osmsdn_destroy(g->ctx);
  pthread_mutex_destroy(&g->mad_lock);
  free(g);
}

/* Runs on OpenSM's sweep thread right after the subnet came up. */
static void report_subnet_up(struct osmsdn_glue* g) {
  osm_opensm_t* osm = g->osm;
  struct glue_fabric f;
  char engine[64] = "none";

  glue_mad_ensure_bound(g);

  /* The shared lock is what OpenSM's own readers of the subnet (SA, perfmgr, console) take; the
   * sweep thread does not hold it between sweep steps. */
  cl_plock_acquire(&osm->lock);
  if (osm->subn.subnet_initialization_error) {
    cl_plock_release(&osm->lock);
    OSM_LOG(&osm->log, OSM_LOG_INFO,
            "osmsdn: the sweep ended with errors; the controller keeps the previous fabric\n");
    return;
  }
  int rc = glue_fabric_capture(osm, GLUE_LFT_COPY_CURRENT, &f);
  if (osm->routing_engine_used && osm->routing_engine_used->name) {
    strncpy(engine, osm->routing_engine_used->name, sizeof(engine) - 1);
  }
  cl_plock_release(&osm->lock);

  if (rc != 0) {
    OSM_LOG(&osm->log, OSM_LOG_ERROR, GLUE_ERR "out of memory copying the subnet\n",
            GLUE_ERR_UP_NOMEM);
    return;
  }
  rc = osmsdn_fabric_updated(g->ctx, &f.view, f.lfts, f.num_lfts, engine);
  if (rc != OSMSDN_OK) {
    OSM_LOG(&osm->log, OSM_LOG_ERROR, GLUE_ERR "controller refused the subnet (error %d)\n",
            GLUE_ERR_UP_REFUSED, rc);
  }
  glue_fabric_free(&f);
}

/* OpenSM reports SUBNET UP only after it has woken the threads waiting for the subnet, so
 * `opensm --once` exits before any plugin hears of it. SA_DB_DUMPED comes at the same point of
 * the sweep but before that wake-up (when sa_db_dump is on, or the log is verbose); whichever of
 * the two comes first delivers the sweep, once. */
static void plugin_report(void* plugin_data, osm_epi_event_id_t event_id, void* event_data) {
  struct osmsdn_glue* g = plugin_data;
  (void)event_data;
  if (!g) return;
  switch (event_id) {
    case OSM_EVENT_ID_HEAVY_SWEEP_START:
      g->sweep_reported = 0;
      break;
    case OSM_EVENT_ID_STATE_CHANGE:
      osmsdn_sm_state_changed(g->ctx, glue_sm_state(g));
      break;
    case OSM_EVENT_ID_SA_DB_DUMPED:
    case OSM_EVENT_ID_SUBNET_UP:
      if (!g->sweep_reported) {
        g->sweep_reported = 1;
        report_subnet_up(g);
      }
      break;
    default:
      break;
  }
}

/* The only symbol libosmsdn.so exports. */
__attribute__((visibility("default"))) osm_event_plugin_t osm_event_plugin = {
    .osm_version = OSM_VERSION,
    .create = plugin_create,
    .delete = plugin_delete,
    .report = plugin_report,
};
