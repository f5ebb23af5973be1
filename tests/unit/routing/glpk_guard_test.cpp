// GLPK inside a long-lived process: an internal error comes back as a message instead of
// aborting, nothing reaches stdout, GLPK works again afterwards, and a session keeps its problem
// objects from one run to the next.
#include <gtest/gtest.h>

#include <glpk.h>

#include <string>

#include "routing/glpk_guard.hpp"

namespace ibsdn {
namespace {

void set_bounds_of_a_missing_column(void*) {
  glp_prob* lp = glp_create_prob();
  glp_add_cols(lp, 1);
  glp_set_col_bnds(lp, 5, GLP_LO, 0.0, 0.0);  // GLPK calls glp_error: column 5 does not exist
}

/// min x subject to x >= 2, with GLPK's own messages on: the guard must still keep them away.
void solve_tiny_lp(void* ctx) {
  glp_prob* lp = glp_create_prob();
  glp_add_cols(lp, 1);
  glp_set_col_bnds(lp, 1, GLP_LO, 2.0, 0.0);
  glp_set_obj_coef(lp, 1, 1.0);
  glp_smcp parm;
  glp_init_smcp(&parm);
  parm.msg_lev = GLP_MSG_ALL;
  *static_cast<double*>(ctx) = glp_simplex(lp, &parm) == 0 ? glp_get_obj_val(lp) : -1.0;
}

TEST(GlpkGuard, InternalError_IsReturnedInsteadOfAbortingOrPrinting) {
  ::testing::internal::CaptureStdout();
  const std::string error = glpk_guarded(&set_bounds_of_a_missing_column, nullptr);
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "");
  EXPECT_NE(error.find("glp_set_col_bnds: j = 5; column number out of range"), std::string::npos)
      << error;
  EXPECT_NE(error.find("Error detected in file"), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << "one line: " << error;
}

TEST(GlpkGuard, AfterAnError_TheNextCallWorks) {
  EXPECT_FALSE(glpk_guarded(&set_bounds_of_a_missing_column, nullptr).empty());
  double objective = 0;
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(glpk_guarded(&solve_tiny_lp, &objective), "");
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "");
  EXPECT_EQ(objective, 2.0);
}

struct TwoSteps {
  glp_prob* lp = nullptr;
  double objective = 0;
};

void create_problem(void* ctx) {
  auto* t = static_cast<TwoSteps*>(ctx);
  t->lp = glp_create_prob();
  glp_add_cols(t->lp, 1);
  glp_set_col_bnds(t->lp, 1, GLP_LO, 3.0, 0.0);
  glp_set_obj_coef(t->lp, 1, 1.0);
}

void solve_problem(void* ctx) {
  auto* t = static_cast<TwoSteps*>(ctx);
  glp_smcp parm;
  glp_init_smcp(&parm);
  t->objective = glp_simplex(t->lp, &parm) == 0 ? glp_get_obj_val(t->lp) : -1.0;
}

void misuse_problem(void* ctx) {
  glp_set_col_bnds(static_cast<TwoSteps*>(ctx)->lp, 7, GLP_LO, 0.0, 0.0);
}

TEST(GlpkGuard, Session_KeepsItsProblemsBetweenRuns) {
  GlpkSession session;
  TwoSteps t;
  EXPECT_EQ(session.run(&create_problem, &t), "");
  EXPECT_EQ(session.run(&solve_problem, &t), "");
  EXPECT_EQ(t.objective, 3.0);
}

TEST(GlpkGuard, Session_AfterAnError_RefusesTheNextRunsWithTheSameMessage) {
  GlpkSession session;
  TwoSteps t;
  EXPECT_EQ(session.run(&create_problem, &t), "");
  const std::string error = session.run(&misuse_problem, &t);
  EXPECT_NE(error.find("column number out of range"), std::string::npos) << error;
  // The problem is gone with GLPK's environment: solving it now would touch freed memory.
  t.objective = 0;
  EXPECT_EQ(session.run(&solve_problem, &t), error);
  EXPECT_EQ(t.objective, 0.0);
}

}  // namespace
}  // namespace ibsdn
