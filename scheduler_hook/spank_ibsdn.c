/* spank_ibsdn.so: the job options of ibsdn on sbatch, srun and salloc (plugstack.conf:
 * "optional /usr/lib/x86_64-linux-gnu/slurm-wlm/spank_ibsdn.so"). Each value is checked when the
 * job is submitted, with the controller's own parser (spank_checks.h); a bad one is refused with
 * the parser's message. The values reach PrologSlurmctld as SPANK_SDN_* variables
 * (spank_job_control_setenv), where ibsdn-slurm-hook turns them into the job's request.
 */
#include <slurm/spank.h>
#include <stddef.h>

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

static int option_cb(int val, const char* optarg, int remote) {
  char err[1024];
  size_t i;
  /* Checked where the user submits; slurmstepd sees the same value again, and a file the
   * value names may not exist on the compute node. */
  if (remote) return 0;
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
  (void)ac;
  (void)av;
  if (ctx != S_CTX_LOCAL && ctx != S_CTX_ALLOCATOR) return 0;
  if (ibsdn_spank_check(err, sizeof err) != 0) {
    slurm_error("ibsdn: %s", err);
    return -1;
  }
  return ibsdn_spank_each_variable(set_job_control, sp);
}
