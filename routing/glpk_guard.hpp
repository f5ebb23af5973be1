// Calling GLPK inside a long-lived process (opensm, the controller): silently, and without ever
// aborting it.
//
// What Debian 12's GLPK 5.0 does, read from its source (src/env/error.c) and checked against the
// installed library (glp_config, tests/unit/routing/glpk_guard_test.cpp):
// - Terminal output goes to stdout unless glp_term_out(GLP_OFF) or a terminal hook that returns
//   non-zero intercepts it; both are settings of the calling thread's environment.
// - On an internal error (glp_error: an argument out of range, out of memory, a failed assertion)
//   GLPK turns terminal output back on, prints the message, calls the hook installed by
//   glp_error_hook if any, and then calls abort(). The only way to survive is to leave the hook
//   by longjmp and then call glp_free_env(), which frees everything GLPK allocated in that
//   environment (its documented recovery).
// - The environment is thread-local: Debian builds it with TLS (glp_config("TLS") is
//   "_Thread_local"), so threads using their own problem objects do not interfere. A GLPK built
//   without TLS has one environment for the process; calls are then serialised here.
#pragma once

#include <mutex>
#include <string>

namespace ibsdn {

/// GLPK for one piece of work in this thread: output silenced, internal errors turned into
/// messages. Problem objects live from one run() to the next; whatever GLPK allocated in this
/// thread is freed when the session ends (glp_free_env), so nothing else in the thread may hold
/// GLPK objects across a session. Sessions do not nest.
class GlpkSession {
 public:
  GlpkSession();
  ~GlpkSession();
  GlpkSession(const GlpkSession&) = delete;
  GlpkSession& operator=(const GlpkSession&) = delete;

  /// Runs `body(ctx)`: empty when it returned normally, otherwise what GLPK reported (e.g.
  /// "glp_set_col_bnds: j = 5; column number out of range ..."). `body` must be written like C:
  /// on a GLPK error it is left by longjmp, so no object with a non-trivial destructor may live
  /// in its frame, and what it wants to keep it writes through `ctx`. After an error every GLPK
  /// object of the session is gone, and later calls return the same message without running.
  std::string run(void (*body)(void* ctx), void* ctx);

 private:
  std::unique_lock<std::mutex> lock_;  // held only when GLPK has one environment per process
  std::string error_;
};

/// A session of one run(): `body` need not delete its problem objects.
std::string glpk_guarded(void (*body)(void* ctx), void* ctx);

}  // namespace ibsdn
