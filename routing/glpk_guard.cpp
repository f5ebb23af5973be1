#include "routing/glpk_guard.hpp"

#include <glpk.h>

#include <algorithm>
#include <cassert>
#include <csetjmp>
#include <cstring>
#include <mutex>

namespace ibsdn {
namespace {

// Thread-local rather than automatic: the hooks change it between setjmp and longjmp, and an
// automatic object of the frame that called setjmp would then have an indeterminate value.
struct GuardState {
  std::jmp_buf jump;
  char message[1024];  // what GLPK printed; with output off, only an error's lines get here
  std::size_t used;
  bool active;
};
thread_local GuardState t_state{};

// Fixed-size, no allocation: it runs inside GLPK's error path, possibly out of memory.
int swallow_output(void* info, const char* s) {
  auto* st = static_cast<GuardState*>(info);
  const std::size_t room = sizeof st->message - 1 - st->used;
  const std::size_t n = std::min(std::strlen(s), room);
  std::memcpy(st->message + st->used, s, n);
  st->used += n;
  st->message[st->used] = '\0';
  return 1;  // non-zero: GLPK writes nothing to stdout
}

[[noreturn]] void leave_on_error(void* info) {
  std::longjmp(static_cast<GuardState*>(info)->jump, 1);
}

// GLPK's error text is "<message>\nError detected in file <f> at line <n>\n": one line, joined.
std::string one_line(const char* text) {
  std::string out(text);
  for (char& c : out) {
    if (c == '\n') c = ' ';
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out.empty() ? std::string("GLPK failed without a message") : out;
}

/// False when `body` was left through leave_on_error(). Nothing here changes between setjmp and
/// longjmp, so nothing is clobbered.
bool run_body(GuardState& st, void (*body)(void* ctx), void* ctx) {
  if (setjmp(st.jump) != 0) return false;
  body(ctx);
  return true;
}

std::unique_lock<std::mutex> serialise_if_shared() {
  static std::mutex shared_env;
  // glp_config reads constants compiled into the library; it does not touch the environment.
  if (glp_config("TLS") != nullptr) return {};
  return std::unique_lock<std::mutex>(shared_env);
}

}  // namespace

GlpkSession::GlpkSession() : lock_(serialise_if_shared()) {
  GuardState& st = t_state;
  assert(!st.active && "GLPK sessions do not nest");
  st.active = true;
  glp_term_out(GLP_OFF);
  glp_term_hook(&swallow_output, &st);
  glp_error_hook(&leave_on_error, &st);
}

GlpkSession::~GlpkSession() {
  // Also removes the hooks: the next GLPK call in this thread starts from a fresh environment.
  glp_free_env();
  t_state.active = false;
}

std::string GlpkSession::run(void (*body)(void* ctx), void* ctx) {
  if (!error_.empty()) return error_;
  GuardState& st = t_state;
  st.used = 0;
  st.message[0] = '\0';
  if (!run_body(st, body, ctx)) {
    glp_free_env();  // GLPK's recovery after an error; frees every object of the session
    error_ = one_line(st.message);
  }
  return error_;
}

std::string glpk_guarded(void (*body)(void* ctx), void* ctx) {
  GlpkSession session;
  return session.run(body, ctx);
}

}  // namespace ibsdn
