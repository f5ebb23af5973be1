/* The C face of sdn_options.hpp for spank_ibsdn.c: the SPANK plugin checks the job's options with
 * the controller's own parser (C++) through these calls. None of them throws or aborts: a bad
 * value or an exhausted allocator is a return value, so the plugin can never crash sbatch, srun
 * or salloc. The values are kept in the plugin's process between the calls (one job per process).
 */
#ifndef IBSDN_SPANK_CHECKS_H
#define IBSDN_SPANK_CHECKS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum ibsdn_spank_option {
  IBSDN_OPT_PATTERN = 0,        /* --sdn-pattern=NAME[:OPT=VALUE,...] | @FILE */
  IBSDN_OPT_HINTS = 1,          /* --sdn-hints=@FILE */
  IBSDN_OPT_RANKS_PER_NODE = 2, /* --sdn-ranks-per-node=N */
  IBSDN_OPT_MAPPING = 3         /* --sdn-mapping=block|cyclic */
};

/* Checks and keeps one option's value. 0, or -1 with the reason in err (NUL-terminated, cut to
 * err_size). */
int ibsdn_spank_option(int option, const char* value, char* err, size_t err_size);

/* Checks the kept options together, as the controller will read the job's request. 0 or -1. */
int ibsdn_spank_check(char* err, size_t err_size);

/* Calls set(name, value, ctx) for each job-control variable of the kept options ("SDN_PATTERN",
 * ...), stopping at the first non-zero result, which it returns; 0 when all were set. */
int ibsdn_spank_each_variable(int (*set)(const char* name, const char* value, void* ctx),
                              void* ctx);

/* Asks the controller at `socket_path` (within `timeout_ms`: connect, request and answer) for job
 * `job`'s LID offset, the path bits its tasks must send with under LMC (`lid_offset` of the
 * controller's `jobs` answer). 0 with *offset set; -1 with the reason in err: no answer, an error
 * answer, or the job not among the controller's jobs. */
int ibsdn_spank_lid_offset(const char* socket_path, unsigned long long job, int timeout_ms,
                           unsigned* offset, char* err, size_t err_size);

#ifdef __cplusplus
}
#endif

#endif /* IBSDN_SPANK_CHECKS_H */
