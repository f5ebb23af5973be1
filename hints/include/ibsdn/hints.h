/* ibsdn/hints.h: a job tells the SDN controller about its own traffic from inside (thesis 4.1.2
 * and 4.2.1): communication phases begin and end, elephant flows between ranks. The calls do
 * what `ibsdnctl job phase` and `ibsdnctl job hint` do, for the job the process runs in.
 *
 *   #include <ibsdn/hints.h>         cc ... -libsdn-hints
 *
 *   if (ibsdn_phase_begin("halo") != IBSDN_OK)
 *     fprintf(stderr, "no SDN routes for the halo phase: %s\n", ibsdn_last_error());
 *
 * Environment: SLURM_JOB_ID (the job; Slurm sets it in every job step), IBSDN_SOCKET (the
 * controller's notice socket, default /run/ibsdn/notice.sock), IBSDN_TIMEOUT_MS (the bound of
 * one call, default 30000; the connect alone gives up after at most 2000).
 *
 * Every call is synchronous and bounded by that timeout; none raises a signal (SIGPIPE
 * included), throws, aborts or exits: a failure is a status and a message, and the program goes
 * on with the routes it had. Calls may come from any thread; the controller answers them one at a
 * time. The controller accepts them from the job's owner (the uid Slurm started the job for),
 * root and the Slurm user. docs/hints-api.md has the details.
 */
#ifndef IBSDN_HINTS_H
#define IBSDN_HINTS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define IBSDN_HINTS_API __attribute__((visibility("default")))
#else
#define IBSDN_HINTS_API
#endif

/* What a call returns. */
enum ibsdn_status {
  IBSDN_OK = 0,
  /* An argument the protocol refuses (a phase name, a pattern, src == dst, NULL); nothing sent. */
  IBSDN_ERR_ARGUMENT = 1,
  /* Not inside a Slurm job (SLURM_JOB_ID unset or not a job id), or IBSDN_TIMEOUT_MS malformed;
   * nothing sent. */
  IBSDN_ERR_ENVIRONMENT = 2,
  /* No usable answer: no socket, permission denied, timeout, connection closed, malformed
   * response. */
  IBSDN_ERR_NO_ANSWER = 3,
  /* The controller refused the request: ibsdn_last_error_code() names why ("forbidden",
   * "unknown_job", "unknown_phase", "invalid", "busy", ...). */
  IBSDN_ERR_REFUSED = 4,
  /* Out of memory and the like. */
  IBSDN_ERR_INTERNAL = 5
};

/* Begins phase `name` (1-64 letters, digits, '_', '.', ':', '-'), declared in the job's
 * job_start: the controller swaps the job's flow entries for the phase's and answers once they
 * are installed. */
IBSDN_HINTS_API int ibsdn_phase_begin(const char* name);

/* Begins phase `name` with its traffic given here, as a pattern text ("shift:k=3",
 * "stencil3d:dims=8x8x16"); for a phase job_start did not declare. */
IBSDN_HINTS_API int ibsdn_phase_begin_pattern(const char* name, const char* pattern);

/* Ends phase `name`: the job returns to its own traffic's entries. */
IBSDN_HINTS_API int ibsdn_phase_end(const char* name);

/* Adds the pair src_rank -> dst_rank to this process's elephant flows and sends them all: the
 * controller replaces the job's elephant pairs with them and re-routes the job if that changes
 * its paths. The set belongs to the process (one rank, typically rank 0, should give the job's
 * hints); it changes only when the controller accepted it. */
IBSDN_HINTS_API int ibsdn_hint_elephant(uint32_t src_rank, uint32_t dst_rank);

/* Replaces this process's elephant flows with `count` pairs, pairs[2*i] -> pairs[2*i+1], and sends
 * them (count 0 clears them; pairs may then be NULL). */
IBSDN_HINTS_API int ibsdn_hint_elephants(const uint32_t* pairs, size_t count);

/* Clears the job's elephant flows (and this process's set). */
IBSDN_HINTS_API int ibsdn_hint_clear(void);

/* Sets the bound of each later call, in milliseconds (1..3600000), over IBSDN_TIMEOUT_MS; 0
 * returns to the environment's or the default. */
IBSDN_HINTS_API int ibsdn_set_timeout_ms(unsigned int timeout_ms);

/* What went wrong in the calling thread's last call that failed, as one line of text ("" when the
 * last call succeeded). Valid until the thread's next call of this library. */
IBSDN_HINTS_API const char* ibsdn_last_error(void);

/* With IBSDN_ERR_REFUSED, the controller's error code ("forbidden", ...); "" otherwise. Valid as
 * ibsdn_last_error(). */
IBSDN_HINTS_API const char* ibsdn_last_error_code(void);

#ifdef __cplusplus
}
#endif

#endif /* IBSDN_HINTS_H */
