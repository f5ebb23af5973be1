/* ibsdn/hints.h from C11 (built with -std=c11 -Wall -Wextra -Werror -pedantic), and a small
 * client for the tests that run it as another user against a real controller:
 *
 *   ibsdn-hints-check no-controller       every check below; exit 0 when all pass
 *   ibsdn-hints-check phase-begin NAME    one call; prints "STATUS CODE: ERROR", exits STATUS
 *   ibsdn-hints-check hint SRC DST
 *
 * It reads SLURM_JOB_ID and IBSDN_SOCKET as any job would. */
#define _POSIX_C_SOURCE 200809L

#include <ibsdn/hints.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int failures = 0;

static void expect(int ok, const char* what) {
  if (!ok) {
    fprintf(stderr, "FAIL: %s (last error: '%s')\n", what, ibsdn_last_error());
    ++failures;
  }
}

static double seconds_since(const struct timespec* t0) {
  struct timespec t1;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* IBSDN_SOCKET names no socket: the calls fail at once, with the path in the message; bad
 * arguments and a missing SLURM_JOB_ID fail before anything is sent. */
static int no_controller(void) {
  const char* socket = getenv("IBSDN_SOCKET");
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  expect(ibsdn_phase_begin("halo") == IBSDN_ERR_NO_ANSWER, "phase_begin without a controller");
  expect(socket != NULL && strstr(ibsdn_last_error(), socket) != NULL,
         "the message names the socket");
  expect(strcmp(ibsdn_last_error_code(), "") == 0, "no controller code without a controller");
  expect(ibsdn_hint_elephant(0, 1) == IBSDN_ERR_NO_ANSWER, "hint_elephant without a controller");
  expect(seconds_since(&t0) < 5.0, "no socket is no wait");

  expect(ibsdn_phase_begin(NULL) == IBSDN_ERR_ARGUMENT, "NULL name");
  expect(ibsdn_phase_begin("a b") == IBSDN_ERR_ARGUMENT, "a name with a space");
  expect(strstr(ibsdn_last_error(), "'a b'") != NULL, "the message quotes the name");
  expect(ibsdn_phase_begin_pattern("io", "nosuch") == IBSDN_ERR_ARGUMENT, "unknown pattern");
  expect(ibsdn_hint_elephant(3, 3) == IBSDN_ERR_ARGUMENT, "a rank sending to itself");
  expect(ibsdn_hint_elephants(NULL, 2) == IBSDN_ERR_ARGUMENT, "NULL pairs");
  expect(ibsdn_set_timeout_ms(3600001u) == IBSDN_ERR_ARGUMENT, "a timeout beyond an hour");
  expect(ibsdn_set_timeout_ms(100) == IBSDN_OK, "a timeout of 100 ms");
  expect(strcmp(ibsdn_last_error(), "") == 0, "no error after a success");

  unsetenv("SLURM_JOB_ID");
  expect(ibsdn_phase_end("halo") == IBSDN_ERR_ENVIRONMENT, "outside a Slurm job");
  expect(strstr(ibsdn_last_error(), "SLURM_JOB_ID") != NULL, "the message names SLURM_JOB_ID");
  setenv("SLURM_JOB_ID", "12x", 1);
  expect(ibsdn_hint_clear() == IBSDN_ERR_ENVIRONMENT, "a malformed SLURM_JOB_ID");
  if (failures == 0) printf("ok: libibsdn-hints from C without a controller\n");
  return failures == 0 ? 0 : 1;
}

static int report(int status) {
  printf("%d %s: %s\n", status, ibsdn_last_error_code(), ibsdn_last_error());
  return status;
}

int main(int argc, char** argv) {
  if (argc == 2 && strcmp(argv[1], "no-controller") == 0) return no_controller();
  if (argc == 3 && strcmp(argv[1], "phase-begin") == 0) return report(ibsdn_phase_begin(argv[2]));
  if (argc == 4 && strcmp(argv[1], "hint") == 0) {
    return report(ibsdn_hint_elephant((uint32_t)strtoul(argv[2], NULL, 10),
                                      (uint32_t)strtoul(argv[3], NULL, 10)));
  }
  fprintf(stderr, "usage: %s no-controller | phase-begin NAME | hint SRC DST\n", argv[0]);
  return 64;
}
