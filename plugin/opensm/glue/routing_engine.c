/* The "sdn" routing engine: OpenSM asks it for unicast LFTs; the controller computes them. */
#include "glue.h"

#include <opensm/osm_log.h>
#include <opensm/osm_switch.h>

static const char kEngineName[] = "sdn";

/* OpenSM calls this from osm_ucast_mgr_process with osm->lock held exclusively, after it
 * prepared every switch's new_lft (sized for max_lid_ho, filled with OSM_NO_PATH). Returning 0
 * makes OpenSM program the tables; a negative value makes it try the next engine (or minhop, or
 * report the failure with no_fallback). A positive value would ask OpenSM for its own minhop
 * tables, which "sdn" never wants. */
static int sdn_ucast_build_fwd_tables(void* context) {
  struct osmsdn_glue* g = context;
  struct glue_fabric f;
  if (glue_fabric_capture(g->osm, GLUE_LFT_NEW_IN_PLACE, &f) != 0) {
    OSM_LOG(&g->osm->log, OSM_LOG_ERROR, GLUE_ERR "out of memory copying the subnet\n",
            GLUE_ERR_ENGINE_NOMEM);
    return -1;
  }
  int rc = osmsdn_compute_lfts(g->ctx, &f.view, f.lfts, f.num_lfts);
  glue_fabric_free(&f);
  if (rc != OSMSDN_OK) {
    OSM_LOG(&g->osm->log, OSM_LOG_ERROR, GLUE_ERR "sdn engine failed (error %d)\n",
            GLUE_ERR_ENGINE_FAILED, rc);
    return -1;
  }
  return 0;
}

/* Called by OpenSM while it builds its routing-engine list from `-R` / routing_engine. */
static int sdn_setup(struct osm_routing_engine* re, struct osm_opensm* osm) {
  (void)osm;
  /* build_lid_matrices stays NULL: OpenSM then computes its min-hop matrices, which its SA
   * (PathRecord hop counts) and multicast routing still use. */
  re->ucast_build_fwd_tables = sdn_ucast_build_fwd_tables;
  return 0;
}

int glue_register_routing_engine(struct osmsdn_glue* g) {
  /* OpenSM copies the module (and the name); the context is handed to every callback. */
  external_routing_engine_module_t module = {
      .name = kEngineName,
      .setup = sdn_setup,
      .context = g,
  };
  cl_status_t st = osm_register_external_routing_engine(g->osm, &module, g);
  if (st != CL_SUCCESS) {
    /* The plugin then does not load: syslog too, as for every refusal to start. */
    OSM_LOG(&g->osm->log, OSM_LOG_ERROR | OSM_LOG_SYS,
            GLUE_ERR "cannot register routing engine '%s' (status %d)\n", GLUE_ERR_ENGINE_REGISTER,
            kEngineName, (int)st);
    return -1;
  }
  OSM_LOG(&g->osm->log, OSM_LOG_INFO, "osmsdn: routing engine '%s' registered\n", kEngineName);
  return 0;
}
