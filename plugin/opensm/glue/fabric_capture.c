/* OpenSM's subnet objects -> the plain structs of osmsdn_abi.h. Reads only; the caller holds
 * osm->lock. */
#include "glue.h"

#include <stdlib.h>
#include <string.h>

#include <complib/cl_qmap.h>
#include <iba/ib_types.h>
#include <opensm/osm_node.h>
#include <opensm/osm_port.h>
#include <opensm/osm_subnet.h>
#include <opensm/osm_switch.h>

static void capture_port(const osm_node_t* node, uint8_t num, struct osmsdn_port* out) {
  memset(out, 0, sizeof(*out));
  out->num = num;
  if (num >= node->physp_tbl_size) return;
  const osm_physp_t* p = &node->physp_table[num];
  if (!osm_physp_is_valid(p)) return;

  out->guid = cl_ntoh64(p->port_guid);
  if (osm_node_get_type(node) != IB_NODE_TYPE_SWITCH) {
    out->lid = cl_ntoh16(p->port_info.base_lid);
    out->lmc = ib_port_info_get_lmc(&p->port_info);
  }
  out->link_width_active = p->port_info.link_width_active;
  out->link_speed_active = ib_port_info_get_link_speed_active(&p->port_info);
  out->link_speed_ext_active = ib_port_info_get_link_speed_ext_active(&p->port_info);

  const osm_physp_t* remote = p->p_remote_physp;
  if (remote && remote->p_node) {
    out->peer_node_guid = cl_ntoh64(osm_node_get_node_guid(remote->p_node));
    out->peer_port = remote->port_num;
  }
}

static void capture_node(const osm_node_t* node, uint32_t first_port, struct osmsdn_node* out,
                         struct osmsdn_port* ports) {
  memset(out, 0, sizeof(*out));
  out->guid = cl_ntoh64(osm_node_get_node_guid(node));
  out->type = osm_node_get_type(node);
  out->num_ports = node->node_info.num_ports;
  out->first_port = first_port;
  memcpy(out->description, node->node_desc.description, IB_NODE_DESCRIPTION_SIZE);
  out->description[IB_NODE_DESCRIPTION_SIZE] = '\0';
  if (out->type == IB_NODE_TYPE_SWITCH && node->physp_tbl_size > 0 &&
      osm_physp_is_valid(&node->physp_table[0])) {
    out->lid = cl_ntoh16(node->physp_table[0].port_info.base_lid);
    out->lmc = ib_port_info_get_lmc(&node->physp_table[0].port_info);
  }
  for (uint8_t i = 0; i < out->num_ports; ++i) {
    capture_port(node, (uint8_t)(i + 1), &ports[i]);
  }
}

/* A switch's table covers LIDs 0..max_lid_ho (LinearFDBTop), within the allocated lft_size. */
static uint32_t lft_entries(const osm_switch_t* sw) {
  uint32_t n = (uint32_t)sw->max_lid_ho + 1;
  return n < sw->lft_size ? n : sw->lft_size;
}

/* The table a mode reads: the one being built (new_lft) or the one on the switch (lft). */
static uint8_t* lft_source(const osm_switch_t* sw, enum glue_lft_mode mode) {
  return mode == GLUE_LFT_NEW_IN_PLACE ? sw->new_lft : sw->lft;
}

static int capture_lfts(osm_subn_t* subn, enum glue_lft_mode mode, struct glue_fabric* out) {
  cl_qmap_t* switches = &subn->sw_guid_tbl;
  uint32_t count = (uint32_t)cl_qmap_count(switches);
  size_t bytes = 0;
  out->lfts = calloc(count ? count : 1, sizeof(*out->lfts));
  if (!out->lfts) return -1;
  for (cl_map_item_t* it = cl_qmap_head(switches); it != cl_qmap_end(switches);
       it = cl_qmap_next(it)) {
    const osm_switch_t* sw = (const osm_switch_t*)it;
    bytes += lft_source(sw, mode) ? lft_entries(sw) : 0;
  }
  if (mode == GLUE_LFT_COPY_CURRENT) {
    out->lft_bytes = malloc(bytes ? bytes : 1);
    if (!out->lft_bytes) return -1;
  }
  size_t offset = 0;
  uint32_t n = 0;
  for (cl_map_item_t* it = cl_qmap_head(switches); it != cl_qmap_end(switches);
       it = cl_qmap_next(it)) {
    osm_switch_t* sw = (osm_switch_t*)it;
    uint8_t* source = lft_source(sw, mode);
    if (!source) continue; /* a switch no sweep has routed yet */
    struct osmsdn_lft* t = &out->lfts[n++];
    t->switch_guid = cl_ntoh64(osm_node_get_node_guid(sw->p_node));
    t->size = lft_entries(sw);
    if (mode == GLUE_LFT_NEW_IN_PLACE) {
      t->ports = source;
    } else {
      t->ports = out->lft_bytes + offset;
      memcpy(t->ports, source, t->size);
      offset += t->size;
    }
  }
  out->num_lfts = n;
  return 0;
}

int glue_fabric_capture(osm_opensm_t* osm, enum glue_lft_mode mode, struct glue_fabric* out) {
  memset(out, 0, sizeof(*out));
  cl_qmap_t* nodes = &osm->subn.node_guid_tbl;
  uint32_t num_nodes = (uint32_t)cl_qmap_count(nodes);
  uint32_t num_ports = 0;
  for (cl_map_item_t* it = cl_qmap_head(nodes); it != cl_qmap_end(nodes); it = cl_qmap_next(it)) {
    num_ports += ((const osm_node_t*)it)->node_info.num_ports;
  }
  out->nodes = calloc(num_nodes ? num_nodes : 1, sizeof(*out->nodes));
  out->ports = calloc(num_ports ? num_ports : 1, sizeof(*out->ports));
  if (!out->nodes || !out->ports) goto fail;

  uint32_t n = 0;
  uint32_t first_port = 0;
  for (cl_map_item_t* it = cl_qmap_head(nodes); it != cl_qmap_end(nodes); it = cl_qmap_next(it)) {
    const osm_node_t* node = (const osm_node_t*)it;
    capture_node(node, first_port, &out->nodes[n++], &out->ports[first_port]);
    first_port += node->node_info.num_ports;
  }
  out->view.nodes = out->nodes;
  out->view.num_nodes = num_nodes;
  out->view.ports = out->ports;
  out->view.num_ports = num_ports;
  out->view.sm_lid = cl_ntoh16(osm->subn.sm_base_lid);

  if (mode != GLUE_LFT_NONE && capture_lfts(&osm->subn, mode, out) != 0) goto fail;
  return 0;

fail:
  glue_fabric_free(out);
  return -1;
}

void glue_fabric_free(struct glue_fabric* f) {
  free(f->nodes);
  free(f->ports);
  free(f->lfts);
  free(f->lft_bytes);
  memset(f, 0, sizeof(*f));
}
