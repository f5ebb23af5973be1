// ibsdnctl: the administrators' tool over the controller's notice socket (README.md).
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cli/ibsdnctl.hpp"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
  ibsdn::cli::Environment env;
  if (const char* s = std::getenv("IBSDN_SOCKET")) env.socket = s;
  if (const char* s = std::getenv("SLURM_JOB_ID")) env.slurm_job_id = s;
  try {
    return ibsdn::cli::run_ibsdnctl(args, env, std::cout, std::cerr);
  } catch (const std::exception& e) {
    // Out of memory and the like: nothing the exit codes describe.
    std::cerr << "ibsdnctl: " << e.what() << "\n";
    return EXIT_FAILURE;
  }
}
