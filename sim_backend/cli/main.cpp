// ibsdn-sim: topology generation, routing and simulation from the command line (sim_main.hpp).
#include "sim_backend/cli/sim_main.hpp"

int main(int argc, char** argv) {
  return ibsdn::sim_main(argc, argv);
}
