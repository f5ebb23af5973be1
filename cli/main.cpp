// ibsdnctl: the administrators' tool over the controller's notice socket (README.md).
#include <cstdlib>
#include <exception>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "cli/ibsdnctl.hpp"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
  std::optional<std::string> socket_env;
  if (const char* s = std::getenv("IBSDN_SOCKET")) socket_env = s;
  try {
    return ibsdn::cli::run_ibsdnctl(args, socket_env, std::cout, std::cerr);
  } catch (const std::exception& e) {
    // Out of memory and the like: nothing the exit codes describe.
    std::cerr << "ibsdnctl: " << e.what() << "\n";
    return EXIT_FAILURE;
  }
}
