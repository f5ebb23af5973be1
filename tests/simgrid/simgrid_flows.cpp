// simgrid-flows: the SimGrid reference for the flow-level engine (docs/simulation-flow.md,
// "Validation against SimGrid"). Reads a flow case (flow_case.hpp), simulates its messages with
// SimGrid 3.32's S4U API and prints "ID COMPLETION" per message, sorted by ID, as `ibsdn-sim flows`
// does.
//
// The model (read in SimGrid 3.32's src/surf/network_cm02.cpp, src/kernel/lmm/maxmin.cpp,
// src/kernel/resource/NetworkModel.cpp, src/simgrid/sg_config.cpp, docs Configuring_SimGrid.rst):
//   network/model:CM02            max-min sharing (lmm "maxmin" solver), no correction factors
//   network/latency-factor:1      route latency used as given
//   network/bandwidth-factor:1    link bandwidth used as given
//   network/weight-S:0            no bandwidth term in a flow's sharing penalty
//   network/TCP-gamma:0           no window bound: CM02 bounds a flow by gamma / (2 x route
//   latency),
//                                 and a bound of 0 is no bound in the solver
//   network/crosstraffic:0        no 5 % reverse-route load per flow
//   surf/precision:1e-15          SimGrid merges events closer than this many seconds (default 1e-9
//                                 s, 1e-5 of a 100 us message: too coarse for 1e-6 comparisons)
//   network/optim:Lazy, maxmin/precision:1e-5 (SimGrid's defaults, left alone)
// Each case link is a SHARED SimGrid link. Each message has its own source host in a star zone
// whose "up" route is exactly the message's links in order; every message goes to one sink host
// with an empty "down" route. So SimGrid's route of a message is its route, in a zone whose size
// grows with the messages (a full zone would hold a route table of hosts squared).
//
// CM02 pays a message's latency (the sum of its links' latencies) first, its flow inactive, and
// then shares bandwidth max-min, but WEIGHTED: a flow's sharing penalty is its route latency, so
// flows on one bottleneck get rates in inverse proportion to their route latencies (CM02's RTT
// unfairness; network_cm02.cpp sets sharing_penalty_ = latency, maxmin.cpp gives a variable
// min_usage / penalty). With every link's latency 0 all penalties are 1: pure max-min. So by
// default the SimGrid links carry latency 0 and each message's actor waits its route latency
// (summed in route order, as SimGrid sums it) after START before sending: the latency is paid
// first and adds to the completion, as in CM02, and the bandwidth phase is pure max-min.
// --cm02-latency-weights puts the latencies on the SimGrid links instead (CM02 as shipped); both
// agree when all messages' route latencies are equal.
// The only other bound on a flow is CM02's per-flow bound at its route's smallest bandwidth,
// which max-min sharing never exceeds anyway.
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "common/file_line_error.hpp"
#include "tests/simgrid/flow_case.hpp"

namespace sg4 = simgrid::s4u;

namespace ibsdn {
namespace {

constexpr const char* kUsage =
    "usage: simgrid-flows [--cm02-latency-weights] [--cfg=NAME:VALUE ...] CASE\n"
    "  Simulates the flow case CASE with SimGrid's CM02 model (pure max-min; latency paid first)\n"
    "  and prints 'ID COMPLETION' per message, sorted by ID. tests/simgrid/README.md.\n"
    "  --cm02-latency-weights: the links carry their latencies inside SimGrid, whose CM02 then\n"
    "  weights each flow's share by 1 / its route latency (not pure max-min).\n"
    "  --cfg=NAME:VALUE: a SimGrid option, set after (and over) the model's; for experiments.\n";

struct Options {
  std::string path;
  bool cm02_latency_weights = false;
  std::vector<std::string> cfg;  // NAME:VALUE, applied after configure()
};

struct Simulated {
  std::vector<double> completion;  // per message, in case order; -1 until received
};

double route_latency(const FlowCase& c, const FlowCaseMessage& m) {
  double sum = 0;
  for (const std::size_t l : m.route) sum += c.links[l].latency;
  return sum;
}

void configure(const sg4::Engine& engine) {
  engine.set_config("network/model:CM02");
  engine.set_config("network/latency-factor:1");
  engine.set_config("network/bandwidth-factor:1");
  engine.set_config("network/weight-S:0");
  engine.set_config("network/TCP-gamma:0");
  engine.set_config("network/crosstraffic:0");
  engine.set_config("surf/precision:1e-15");
  // One actor per message: small stacks (the actor only sleeps and sends).
  engine.set_config("contexts/stack-size:128");
}

Simulated simulate(const FlowCase& c, const Options& o, sg4::Engine& engine) {
  sg4::NetZone* zone = sg4::create_star_zone("case");
  std::vector<sg4::Link*> links;
  links.reserve(c.links.size());
  for (const FlowCaseLink& l : c.links) {
    sg4::Link* link = zone->create_link(l.name, l.bandwidth);
    link->set_latency(o.cm02_latency_weights ? l.latency : 0.0);
    link->set_sharing_policy(sg4::Link::SharingPolicy::SHARED);
    links.push_back(link->seal());
  }
  sg4::Host* sink = zone->create_host("sink", 1.0)->seal();
  std::vector<sg4::Host*> sources;
  sources.reserve(c.messages.size());
  for (const FlowCaseMessage& m : c.messages) {
    sg4::Host* src = zone->create_host("m" + std::to_string(m.id), 1.0)->seal();
    std::vector<sg4::LinkInRoute> route;
    route.reserve(m.route.size());
    for (const std::size_t l : m.route) route.emplace_back(links[l]);
    zone->add_route(src->get_netpoint(), nullptr, nullptr, nullptr, route, false);
    sources.push_back(src);
  }
  zone->seal();

  Simulated out;
  out.completion.assign(c.messages.size(), -1.0);
  for (std::size_t i = 0; i < c.messages.size(); ++i) {
    const FlowCaseMessage& m = c.messages[i];
    const double send_at = o.cm02_latency_weights ? m.start : m.start + route_latency(c, m);
    sg4::Host* src = sources[i];
    double* done = &out.completion[i];
    const std::uint64_t size = m.size;
    sg4::Actor::create("send" + std::to_string(m.id), src, [=] {
      sg4::this_actor::sleep_until(send_at);
      sg4::Comm::sendto(src, sink, size);
      *done = sg4::Engine::get_clock();
    });
  }
  engine.run();
  return out;
}

int run(const Options& o, int argc, char** argv) {
  std::ifstream in(o.path, std::ios::binary);
  if (!in) {
    std::cerr << "simgrid-flows: cannot read '" << o.path << "'\n";
    return 2;
  }
  std::ostringstream text;
  text << in.rdbuf();
  FlowCase c;
  try {
    c = parse_flow_case(text.str(), o.path);
  } catch (const FileLineError& e) {
    std::cerr << "simgrid-flows: " << e.what() << '\n';
    return 2;
  }

  sg4::Engine engine(&argc, argv);
  configure(engine);
  for (const std::string& option : o.cfg) {
    try {
      engine.set_config(option);
    } catch (const std::exception& e) {
      std::cerr << "simgrid-flows: --cfg=" << option << ": " << e.what() << '\n';
      return 2;
    }
  }
  const Simulated s = simulate(c, o, engine);

  std::vector<std::size_t> order(c.messages.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return c.messages[a].id < c.messages[b].id; });
  int status = 0;
  for (const std::size_t i : order) {
    if (s.completion[i] < 0) {
      std::cerr << "simgrid-flows: message " << c.messages[i].id << " was never received\n";
      status = 1;
      continue;
    }
    std::printf("%llu %.17g\n", static_cast<unsigned long long>(c.messages[i].id), s.completion[i]);
  }
  return status;
}

}  // namespace
}  // namespace ibsdn

int main(int argc, char** argv) {
  ibsdn::Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      std::cout << ibsdn::kUsage;
      return 0;
    }
    if (a == "--cm02-latency-weights") {
      o.cm02_latency_weights = true;
    } else if (a.rfind("--cfg=", 0) == 0) {
      o.cfg.push_back(a.substr(6));
    } else if (!a.empty() && a[0] == '-') {
      std::cerr << "simgrid-flows: unknown option '" << a << "'\n" << ibsdn::kUsage;
      return 2;
    } else if (o.path.empty()) {
      o.path = a;
    } else {
      std::cerr << "simgrid-flows: more than one CASE\n" << ibsdn::kUsage;
      return 2;
    }
  }
  if (o.path.empty()) {
    std::cerr << ibsdn::kUsage;
    return 2;
  }
  // SimGrid reads its own options (--cfg, --log) from the command line; it gets only the program
  // name and a log threshold that keeps its configuration chatter off stderr.
  std::string name = argv[0];
  std::string quiet = "--log=root.thres:warning";
  char* sg_argv[] = {name.data(), quiet.data(), nullptr};
  int sg_argc = 2;
  try {
    return ibsdn::run(o, sg_argc, sg_argv);
  } catch (const std::exception& e) {
    std::cerr << "simgrid-flows: " << e.what() << '\n';
    return 1;
  }
}
