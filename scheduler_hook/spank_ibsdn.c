/* spank_ibsdn.so: the job options of ibsdn on sbatch, srun and salloc (plugstack.conf:
 * "optional /usr/lib/x86_64-linux-gnu/slurm-wlm/spank_ibsdn.so"). Each value is checked when the
 * job is submitted, with the controller's own parser (spank_checks.h); a bad one is refused with
 * the parser's message. The values reach PrologSlurmctld as SPANK_SDN_* variables
 * (spank_job_control_setenv), where ibsdn-slurm-hook turns them into the job's request.
 *
 * In slurmstepd (remote context), for a job with --sdn-pattern, the plugin asks the controller for
 * the job's LID offset (LMC: its own LIDs on shared nodes) and exports it to the tasks:
 * IBSDN_LID_OFFSET, and UCX_IB_LID_PATH_BITS when it is not 0 (unless the job set its own).
 * Arguments in plugstack.conf: socket=PATH (default: the job's IBSDN_SOCKET, else
 * /run/ibsdn/notice.sock), timeout_ms=N (default 2000). A controller that does not answer
 * leaves the job on its base LIDs (logged; the job runs).
 */
#include <slurm/spank.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler_hook/spank_checks.h"

SPANK_PLUGIN(ibsdn, 1);

static int option_cb(int val, const char* optarg, int remote);

/* spank_option_register() needs non-const strings; the table is never written. */
static struct spank_option ibsdn_options[] = {
    {"sdn-pattern", "NAME[:OPT=VALUE,...]|@FILE",
     "ibsdn: route the job's traffic with SDN flow entries: a pattern (ring, 3dnn, "
     "shift:k=3, ...; 'ibsdn-sim list') or @FILE, a traffic matrix (SRC DST BYTES lines)",
     1, IBSDN_OPT_PATTERN, option_cb},
    {"sdn-hints", "@FILE", "ibsdn: elephant rank pairs (SRC DST lines) for --sdn-pattern", 1,
     IBSDN_OPT_HINTS, option_cb},
    {"sdn-ranks-per-node", "N", "ibsdn: ranks per node for --sdn-pattern (default: GPUs or 1)", 1,
     IBSDN_OPT_RANKS_PER_NODE, option_cb},
    {"sdn-mapping", "block|cyclic", "ibsdn: rank placement for --sdn-pattern (default block)", 1,
     IBSDN_OPT_MAPPING, option_cb},
};

static const size_t ibsdn_option_count = sizeof ibsdn_options / sizeof ibsdn_options[0];

/* slurmstepd: the job asked for SDN routes (--sdn-pattern). */
static int sdn_requested = 0;

static int option_cb(int val, const char* optarg, int remote) {
  char err[1024];
  size_t i;
  /* Checked where the user submits; slurmstepd sees the same value again, and a file the
   * value names may not exist on the compute node. */
  if (remote) {
    if (val == IBSDN_OPT_PATTERN) sdn_requested = 1;
    return 0;
  }
  if (ibsdn_spank_option(val, optarg, err, sizeof err) == 0) return 0;
  for (i = 0; i < ibsdn_option_count; i++) {
    if (ibsdn_options[i].val == val) {
      slurm_error("--%s: %s", ibsdn_options[i].name, err);
      return -1;
    }
  }
  slurm_error("ibsdn: %s", err);
  return -1;
}

int slurm_spank_init(spank_t sp, int ac, char** av) {
  size_t i;
  (void)ac;
  (void)av;
  /* The static spank_options table is not honoured by sbatch and salloc: register. */
  for (i = 0; i < ibsdn_option_count; i++) {
    spank_err_t rc = spank_option_register(sp, &ibsdn_options[i]);
    if (rc != ESPANK_SUCCESS) {
      slurm_error("ibsdn: cannot register --%s: %s", ibsdn_options[i].name, spank_strerror(rc));
      return -1;
    }
  }
  return 0;
}

static void export_lid_offset(spank_t sp, int ac, char** av);

static int set_job_control(const char* name, const char* value, void* ctx) {
  spank_err_t rc = spank_job_control_setenv((spank_t)ctx, name, value, 1);
  if (rc != ESPANK_SUCCESS) {
    slurm_error("ibsdn: cannot pass %s to the job's prolog: %s", name, spank_strerror(rc));
    return -1;
  }
  return 0;
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char** av) {
  char err[1024];
  spank_context_t ctx = spank_context();
  if (ctx == S_CTX_REMOTE) {
    if (sdn_requested) export_lid_offset(sp, ac, av);
    return 0;
  }
  if (ctx != S_CTX_LOCAL && ctx != S_CTX_ALLOCATOR) return 0;
  if (ibsdn_spank_check(err, sizeof err) != 0) {
    slurm_error("ibsdn: %s", err);
    return -1;
  }
  return ibsdn_spank_each_variable(set_job_control, sp);
}

/* slurmstepd (remote context, still root: the controller admits root beyond the per-user
 * connection limit, which a job's many nodes asking at once would reach), once per step and node
 * before the tasks start: the job's LID offset into their environment. */
static void export_lid_offset(spank_t sp, int ac, char** av) {
  char socket[4096] = "/run/ibsdn/notice.sock";
  char err[1024];
  char text[16];
  char existing[256];
  int timeout_ms = 2000;
  int i;
  uint32_t job = 0;
  unsigned offset = 0;
  spank_err_t rc;
  if (spank_getenv(sp, "IBSDN_SOCKET", socket, sizeof socket) != ESPANK_SUCCESS) {
    snprintf(socket, sizeof socket, "%s", "/run/ibsdn/notice.sock");
  }
  for (i = 0; i < ac; i++) {
    if (strncmp(av[i], "socket=", 7) == 0 && strlen(av[i] + 7) < sizeof socket) {
      snprintf(socket, sizeof socket, "%s", av[i] + 7);
    } else if (strncmp(av[i], "timeout_ms=", 11) == 0) {
      char* end = NULL;
      long t = strtol(av[i] + 11, &end, 10);
      if (end != NULL && *end == '\0' && t > 0 && t <= 60000) timeout_ms = (int)t;
    }
  }
  if (spank_get_item(sp, S_JOB_ID, &job) != ESPANK_SUCCESS) return;
  if (ibsdn_spank_lid_offset(socket, job, timeout_ms, &offset, err, sizeof err) != 0) {
    slurm_info("ibsdn: job %u: no LID offset from the controller (%s): its tasks use the base LIDs",
               job, err);
    return;
  }
  snprintf(text, sizeof text, "%u", offset);
  spank_setenv(sp, "IBSDN_LID_OFFSET", text, 1);
  if (offset == 0) return;
  rc = spank_getenv(sp, "UCX_IB_LID_PATH_BITS", existing, sizeof existing);
  if (rc != ESPANK_ENV_NOEXIST) {
    slurm_info(
        "ibsdn: job %u: UCX_IB_LID_PATH_BITS=%s kept (the job set it); its routes are on "
        "LID offset %u",
        job, rc == ESPANK_SUCCESS ? existing : "(too long to show)", offset);
    return;
  }
  spank_setenv(sp, "UCX_IB_LID_PATH_BITS", text, 1);
}
