/* The only interface between libosmsdn.so's C glue (plugin/opensm/glue/, the code that sees
 * OpenSM's headers) and its C++ controller. Plain C: fixed-width integers, flat arrays, no
 * ownership transfer. Every osmsdn_* function below is implemented in C++, catches every exception
 * and reports failure as a negative osmsdn_status; none of them keeps a pointer it was given.
 *
 * Byte order: everything here is host order (the glue converts OpenSM's network-order fields),
 * except MAD buffers, which are the 256 wire bytes.
 *
 * Threads: see plugin/opensm/README.md. In short, osmsdn_compute_lfts runs on OpenSM's sweep thread
 * and returns when done; the other calls only copy their arguments and return at once, the
 * work happens on the controller's own thread. */
#ifndef OSMSDN_ABI_H
#define OSMSDN_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define OSMSDN_ABI_VERSION 3u

/* One MAD, as it travels: the 24-byte common header and 232 data bytes. */
#define OSMSDN_MAD_SIZE 256u
/* The SDN management class the glue binds (mad/sdn_mad.hpp has the same values). */
#define OSMSDN_MGMT_CLASS 0x09u
#define OSMSDN_CLASS_VERSION 1u
/* NodeDescription is 64 bytes on the wire, not necessarily NUL-terminated; one more for the NUL. */
#define OSMSDN_DESC_SIZE 65u
/* An LFT entry meaning "no route" (OpenSM's OSM_NO_PATH). */
#define OSMSDN_NO_PATH 255u

enum osmsdn_status {
  OSMSDN_OK = 0,
  OSMSDN_ERR_INVALID = -1,     /* malformed input (a dangling cable, a duplicate LID, ...) */
  OSMSDN_ERR_UNSUPPORTED = -2, /* the fabric cannot be routed by this engine */
  OSMSDN_ERR_NOMEM = -3,
  OSMSDN_ERR_INTERNAL = -4,    /* a bug: an invariant broke; the message went to the log */
  OSMSDN_ERR_UNAVAILABLE = -5, /* send_mad: the MAD channel is not bound (yet) */
  OSMSDN_ERR_SEND = -6         /* send_mad: the vendor layer refused the MAD */
};

enum osmsdn_log_level {
  OSMSDN_LOG_ERROR = 0,
  OSMSDN_LOG_INFO = 1,
  OSMSDN_LOG_VERBOSE = 2,
  OSMSDN_LOG_DEBUG = 3,
  OSMSDN_LOG_ERROR_SYS = 4 /* an error also sent to syslog (OSM_LOG_ERROR | OSM_LOG_SYS) */
};

/* OpenSM's SM state (SMInfo:SMState, IB_SMINFO_STATE_*): only a MASTER acts on the fabric. */
enum osmsdn_sm_state {
  OSMSDN_SM_NOTACTIVE = 0,
  OSMSDN_SM_DISCOVERING = 1,
  OSMSDN_SM_STANDBY = 2,
  OSMSDN_SM_MASTER = 3
};

/* NodeInfo NodeType values. */
enum osmsdn_node_type { OSMSDN_NODE_CA = 1, OSMSDN_NODE_SWITCH = 2, OSMSDN_NODE_ROUTER = 3 };

/* One physical port (1..num_ports) of a node. */
struct osmsdn_port {
  uint64_t guid;             /* port GUID; 0 when OpenSM has no record of the port */
  uint64_t peer_node_guid;   /* node GUID at the other end of the cable; 0 when not cabled */
  uint16_t lid;              /* base LID of a CA / router port; 0 for switch ports (see node.lid) */
  uint8_t num;               /* physical port number */
  uint8_t peer_port;         /* port number at the other end; 0 when not cabled */
  uint8_t lmc;               /* the port answers LIDs lid .. lid + 2^lmc - 1 */
  uint8_t link_width_active; /* PortInfo:LinkWidthActive (1 = 1x, 2 = 4x, 4 = 8x, 8 = 12x) */
  uint8_t link_speed_active; /* PortInfo:LinkSpeedActive (1 = SDR, 2 = DDR, 4 = QDR) */
  uint8_t link_speed_ext_active; /* PortInfo:LinkSpeedExtActive (1 = FDR, 2 = EDR, 4 = HDR,
                                    8 = NDR), 0 when not in use */
};

struct osmsdn_node {
  uint64_t guid;       /* node GUID */
  uint32_t first_port; /* this node's ports are fabric.ports[first_port .. first_port+num_ports) */
  uint16_t lid;        /* a switch's LID (its port 0); 0 for other nodes */
  uint8_t lmc;         /* LMC of a switch's port 0 */
  uint8_t type;        /* enum osmsdn_node_type */
  uint8_t num_ports;   /* physical ports, port 0 not counted */
  char description[OSMSDN_DESC_SIZE]; /* NodeDescription, NUL-terminated */
};

/* A copy of the subnet: every node OpenSM discovered and every cable, seen from both ends. */
struct osmsdn_fabric {
  const struct osmsdn_node* nodes;
  uint32_t num_nodes;
  const struct osmsdn_port* ports;
  uint32_t num_ports;
  uint16_t sm_lid; /* the LID of the port this SM (and the controller's MADs) uses */
};

/* One switch's linear forwarding table: ports[lid] is the output port for DLID lid
 * (0 = the switch itself, OSMSDN_NO_PATH = none), for lid < size. */
struct osmsdn_lft {
  uint64_t switch_guid;
  uint8_t* ports;
  uint32_t size;
};

/* LIDs per block of a linear forwarding table (SubnSet/SubnGet(LinearForwardingTable)). */
#define OSMSDN_LFT_BLOCK_SIZE 64u

/* One 64-entry block of one switch's LFT: ports[i] is the output port of LID
 * block * OSMSDN_LFT_BLOCK_SIZE + i. */
struct osmsdn_lft_block {
  uint64_t switch_guid;
  uint16_t block;
  uint8_t ports[OSMSDN_LFT_BLOCK_SIZE];
};

/* What the glue offers the controller. `glue` is passed back as the first argument. The
 * functions may be called from any thread and never block on the network. */
struct osmsdn_glue_ops {
  void* glue;
  /* The GUID of the port this SM runs on as opensm was told (--guid, `guid` in opensm.conf);
   * 0 when opensm picks the port itself. Fills the `%g` of templated paths. */
  uint64_t sm_port_guid;
  /* Writes one line (no trailing newline needed) to OpenSM's log. */
  void (*log)(void* glue, enum osmsdn_log_level level, const char* message);
  /* Sends a request MAD LID-routed to `dlid` (GSI: QP 1, Q_Key 0x80010000, P_Key index 0) and
   * expects a response. The answer arrives in osmsdn_mad_received, a failure (timeout, no route,
   * no agent) in osmsdn_mad_send_failed — possibly before send_mad returns. Returns OSMSDN_OK or
   * OSMSDN_ERR_UNAVAILABLE / OSMSDN_ERR_SEND. */
  int (*send_mad)(void* glue, uint16_t dlid, const uint8_t mad[OSMSDN_MAD_SIZE]);
  /* OpenSM's SM state now (enum osmsdn_sm_state). NULL: always master (tests without OpenSM). */
  int (*sm_state)(void* glue);
  /* Writes `n` LFT blocks into OpenSM's tables (the routing engine's, which OpenSM compares with
   * what each switch holds) and lets OpenSM send the blocks that differ (SubnSet), then waits at
   * most `timeout_ms` for the switches to confirm; confirmed[i] is set to 1 when block i is on
   * its switch as written, 0 otherwise (no such switch, no table, no answer). Blocks the calling
   * thread (never call it on one of OpenSM's). OSMSDN_OK, or OSMSDN_ERR_UNAVAILABLE when this SM
   * is not master. NULL: no LFT backend. */
  int (*lft_write)(void* glue, const struct osmsdn_lft_block* blocks, uint32_t n,
                   uint32_t timeout_ms, uint8_t* confirmed);
  /* Reads `n` LFT blocks from the switches (SubnGet; switch_guid and block given, ports filled
   * in); answered[i] is 1 when block i's switch answered within `timeout_ms`. Same threads and
   * results as lft_write. NULL: no LFT backend. */
  int (*lft_read)(void* glue, struct osmsdn_lft_block* blocks, uint32_t n, uint32_t timeout_ms,
                  uint8_t* answered);
};

struct osmsdn_ctx; /* the C++ controller, opaque to C */

/* Creates the controller. `options` is OpenSM's event_plugin_options (may be NULL): comma- or
 * space-separated key=value pairs, see plugin/opensm/README.md. On success *out is set; otherwise
 * the reason was logged at OSMSDN_LOG_ERROR_SYS (unless ops or out is NULL). */
int osmsdn_create(uint32_t abi_version, const struct osmsdn_glue_ops* ops, const char* options,
                  struct osmsdn_ctx** out);

/* Finishes the controller's queued work (bounded by its MAD timeout) and stops its thread. After
 * it returns no glue function is called any more; MAD callbacks that still arrive are ignored. */
void osmsdn_stop(struct osmsdn_ctx* ctx);

/* Frees the controller (calls osmsdn_stop first if needed). */
void osmsdn_destroy(struct osmsdn_ctx* ctx);

/* The "sdn" routing engine: fills every given table for `fabric` (DmodK on a recognised XGFT,
 * min-hop otherwise; every LID of the fabric reachable). The tables are written only when the
 * whole computation succeeded; on failure they are untouched. */
int osmsdn_compute_lfts(struct osmsdn_ctx* ctx, const struct osmsdn_fabric* fabric,
                        const struct osmsdn_lft* lfts, uint32_t num_lfts);

/* The subnet is up: `fabric` and the LFTs now on the switches (`engine` routed them). Copies all
 * of it and returns; the controller handles it on its own thread. */
int osmsdn_fabric_updated(struct osmsdn_ctx* ctx, const struct osmsdn_fabric* fabric,
                          const struct osmsdn_lft* lfts, uint32_t num_lfts, const char* engine);

/* OpenSM reported a change of its SM state (OSM_EVENT_ID_STATE_CHANGE); `state` is the state
 * now (enum osmsdn_sm_state). Records it and returns. */
void osmsdn_sm_state_changed(struct osmsdn_ctx* ctx, int state);

/* A response to one of the controller's MADs arrived from `slid`. */
void osmsdn_mad_received(struct osmsdn_ctx* ctx, uint16_t slid, const uint8_t mad[OSMSDN_MAD_SIZE]);

/* A request the controller sent to `dlid` failed: `timed_out` is non-zero when no answer came
 * (or the fabric could not deliver it), zero for any other send error. */
void osmsdn_mad_send_failed(struct osmsdn_ctx* ctx, uint16_t dlid,
                            const uint8_t mad[OSMSDN_MAD_SIZE], int timed_out);

#ifdef __cplusplus
}
#endif

#endif /* OSMSDN_ABI_H */
