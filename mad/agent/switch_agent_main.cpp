// ibsdn-switch-agent: emulates the flow table of an SDN-capable switch. Attached to a switch's
// port 0 through libibumad (under ibsim: LD_PRELOAD=libumad2sim.so, SIM_HOST=<switch>), it
// answers the SDN MAD class 0x09 (seed 002 III.D) for the controller. Starts with an empty table.
// Every MAD must carry the key; FlowMods are taken only from the subnet's master SM (read from
// the switch's PortInfo) and the LIDs named by --allow-lid.
#include <CLI/CLI.hpp>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mad/agent/cli_common.hpp"
#include "mad/agent/node_info.hpp"
#include "mad/raw_header.hpp"
#include "mad/responder_loop.hpp"
#include "mad/umad_transport.hpp"
#include "mad/writer_check.hpp"

namespace {

namespace mad = ibsdn::mad;

constexpr int kExitStopped = 0;
constexpr int kExitInternal = 1;
constexpr int kExitUsage = 2;
constexpr int kExitAttach = 3;
constexpr int kExitPorts = 4;
constexpr int kExitLog = 5;

constexpr const char* kExitCodes =
    "Exit codes:\n"
    "  0  stopped by SIGTERM or SIGINT\n"
    "  1  internal error\n"
    "  2  bad command line or key file\n"
    "  3  libibumad: cannot open / register the port, or the port stopped working\n"
    "  4  the number of ports is unknown (NodeInfo query failed and no --num-ports)\n"
    "  5  cannot open the --log file\n";

// A PortInfo SMP to the switch's own SMA: answered at once, or the SMA is not there.
constexpr std::chrono::milliseconds kPortInfoTimeout{250};

constexpr const char* kAuthentication =
    "Authentication:\n"
    "  Every MAD must carry the key: --key-file PATH (--key HEX for tests; --no-key runs without\n"
    "  one). FlowMods (writes) are taken only from the subnet's master SM, whose LID the agent\n"
    "  reads from its own PortInfo:MasterSMLID (again after 10 s, and at most once a second when\n"
    "  another LID writes, to follow a fail-over), and from the LIDs named by --allow-lid;\n"
    "  --any-writer takes them from every LID. Other writers get status 0x0600 (not authorized),\n"
    "  are counted, and logged once per LID per minute. Reads (FlowStats, TableInfo, Barrier)\n"
    "  need only the key.\n\n";

std::atomic<bool> g_stop{false};

extern "C" void on_signal(int) {
  g_stop.store(true);
}

/// One line per event to the log file or stderr, flushed at once (the agent runs until killed).
class Log {
 public:
  explicit Log(std::FILE* f) : f_(f) {}
  void line(const std::string& text) {
    std::fprintf(f_, "%s %s\n", mad::cli::timestamp().c_str(), text.c_str());
    std::fflush(f_);
  }

 private:
  std::FILE* f_;
};

std::string hex16(unsigned v) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%04x", v);
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "ibsdn-switch-agent: the flow table of an SDN-capable switch, managed through MAD class "
      "0x09.\nUnder ibsim run it with LD_PRELOAD=/usr/lib/x86_64-linux-gnu/umad2sim/"
      "libumad2sim.so and SIM_HOST=<switch name>."};
  app.footer(std::string(kAuthentication) + kExitCodes);
  std::string ca;
  int port = 0;
  mad::cli::KeySource key_source;
  std::vector<std::string> allow_lid_texts;
  bool any_writer = false;
  std::uint32_t capacity = 4096;
  std::string level_text = "slid-dlid-sl-qp";
  int num_ports = 0;
  std::string log_path;
  bool verbose = false;
  std::string sm_port = "auto";
  app.add_option("--ca", ca, "CA name (default: libibumad's default CA)");
  app.add_option("--port", port, "port number (default: the first active port)");
  auto* key_opt = app.add_option("--key", key_source.key_text,
                                 "authentication key, hex (64 bits); for tests: it shows in ps");
  auto* key_file_opt =
      app.add_option("--key-file", key_source.key_file,
                     "read the key from this file: one line, 0x-hex or decimal; a regular file "
                     "of this user or root with no access for group and others (chmod 600)");
  auto* no_key_opt =
      app.add_flag("--no-key", key_source.no_key, "run without authentication (key 0)");
  key_opt->excludes(key_file_opt, no_key_opt);
  key_file_opt->excludes(no_key_opt);
  auto* allow_opt = app.add_option("--allow-lid", allow_lid_texts,
                                   "a LID that may send FlowMods besides the master SM "
                                   "(decimal or 0x-hex; repeat for more)");
  auto* any_opt = app.add_flag("--any-writer", any_writer,
                               "accept FlowMods from every LID that knows the key (tests, tools)");
  allow_opt->excludes(any_opt);
  app.add_option("--capacity", capacity, "flow table capacity in entries")
      ->check(CLI::Range(1u, 1u << 24))
      ->capture_default_str();
  app.add_option("--level", level_text, "flow definition level")
      ->check(CLI::IsMember({"dlid", "slid-dlid", "slid-dlid-sl", "slid-dlid-sl-qp"}))
      ->capture_default_str();
  app.add_option("--num-ports", num_ports,
                 "number of switch ports; by default NodeInfo:NumPorts of the local node")
      ->check(CLI::Range(1, 254));
  app.add_option("--log", log_path, "append the log to this file instead of stderr");
  app.add_flag("--verbose", verbose, "log one line per MAD (errors are always logged)");
  app.add_option("--sm-port", sm_port,
                 "claim the port's SM role so that requests reach the agent: needed under ibsim "
                 "(it hands requests to QP 1 only to a node's SM client), wrong on real hardware; "
                 "auto = only on umad2sim's device")
      ->check(CLI::IsMember({"auto", "yes", "no"}))
      ->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }

  mad::ResponderConfig cfg;
  mad::WriterPolicy writers;
  writers.any_writer = any_writer;
  try {
    cfg.key = mad::cli::resolve_key(key_source, "ibsdn-switch-agent");
    for (const std::string& text : allow_lid_texts) {
      writers.allowed.push_back(mad::cli::parse_lid(text));
    }
  } catch (const std::exception& e) {  // std::invalid_argument, mad::KeyFileError
    std::fprintf(stderr, "ibsdn-switch-agent: %s\n", e.what());
    return kExitUsage;
  }
  cfg.table.capacity = capacity;
  cfg.table.level = *ibsdn::parse_flow_definition_level(level_text);

  std::FILE* log_file = stderr;
  if (!log_path.empty()) {
    log_file = std::fopen(log_path.c_str(), "a");
    if (!log_file) {
      std::fprintf(stderr, "ibsdn-switch-agent: cannot open log '%s': %s\n", log_path.c_str(),
                   std::strerror(errno));
      return kExitLog;
    }
  }
  Log log(log_file);

  try {
    // Before the transport opens: umad2sim routes each management class to the file descriptor
    // that registered it last and forgets only one class when a descriptor closes, so libibmad's
    // short-lived SMI registration must not come after the transport's own.
    if (num_ports == 0) {
      auto n = mad::query_local_num_ports(ca, port);
      if (const auto* why = std::get_if<std::string>(&n)) {
        log.line("error: cannot learn the number of ports (" + *why + "); give --num-ports");
        return kExitPorts;
      }
      num_ports = std::get<int>(n);
    }
    cfg.table.num_ports = static_cast<std::uint8_t>(num_ports);

    std::unique_ptr<mad::UmadTransport> transport;
    try {
      mad::UmadOptions opts;
      opts.ca = ca;
      opts.port = port;
      opts.responder = true;
      opts.claim_sm_port = sm_port == "auto"  ? mad::SmPortClaim::kIfSimulated
                           : sm_port == "yes" ? mad::SmPortClaim::kYes
                                              : mad::SmPortClaim::kNo;
      transport = std::make_unique<mad::UmadTransport>(opts);
    } catch (const mad::TransportError& e) {
      log.line(std::string("error: cannot attach: ") + e.what());
      return kExitAttach;
    }

    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, nullptr);
    sigaction(SIGINT, &sa, nullptr);

    // Under ibsim the requester's umad2sim delivers only the first bytes of each reply.
    cfg.reply_bytes = transport->intact_bytes();
    cfg.writers = std::make_shared<mad::WriterCheck>(writers, [&]() -> std::optional<ibsdn::Lid> {
      try {
        return transport->query_master_sm_lid(kPortInfoTimeout);
      } catch (const mad::TransportError& e) {
        log.line(std::string("error: cannot read PortInfo:MasterSMLID: ") + e.what());
        return std::nullopt;
      }
    });
    const std::shared_ptr<mad::WriterCheck> writer_check = cfg.writers;
    mad::SwitchResponder responder(cfg);
    log.line(
        "ibsdn-switch-agent: attached to " + transport->ca_name() + " port " +
        std::to_string(transport->port_num()) + ", LID " + hex16(transport->local_lid().value()) +
        (transport->claimed_sm_port() ? " (as the port's SM client)" : "") + "; table capacity " +
        std::to_string(capacity) + ", level " + level_text + ", " + std::to_string(num_ports) +
        " ports; wire format revision " + std::to_string(mad::kWireFormatRevision));
    if (key_source.no_key) {
      log.line("warning: no authentication key (--no-key): any sender may read this table");
    }
    if (any_writer) {
      log.line("writers: any LID that knows the key (--any-writer)");
    } else {
      const auto master = writer_check->refresh(mad::WriterCheck::Clock::now());
      std::string text = "writers: the master SM (";
      if (!master) {
        text += "PortInfo:MasterSMLID unreadable for now";
      } else if (master->value() == 0) {
        text += "none yet, PortInfo:MasterSMLID 0";
      } else {
        text += "LID " + hex16(master->value()) + " by PortInfo:MasterSMLID";
      }
      text += ")";
      for (ibsdn::Lid lid : writers.allowed) text += ", LID " + hex16(lid.value());
      log.line(text);
    }
    mad::ServeHooks hooks;
    hooks.on_mad = [&](const mad::ReceivedMad& in, const mad::Handled& h) {
      const bool trouble = !h.reply || h.status != mad::Status::kOk;
      if (!verbose && (!trouble || h.rate_limited)) return;
      std::string text = "from " + hex16(in.from.value()) + " " + mad::method_name(h.method) + " " +
                         mad::attribute_name(h.attr_id) + " status " +
                         std::string(mad::to_string(h.status));
      if (h.attr_id == static_cast<std::uint16_t>(mad::AttributeId::kFlowMod) && h.reply &&
          h.status == mad::Status::kOk) {
        text += " affected " + std::to_string(h.affected);
      }
      if (!h.detail.empty()) text += ": " + h.detail;
      if (!h.reply) text += " (no reply)";
      // A refused writer is the sender's business, not a fault of the agent.
      const char* level = h.status == mad::Status::kNotAuthorized ? "warning: " : "error: ";
      log.line(trouble && !verbose ? level + text : text);
    };
    hooks.on_error = [&](const std::string& what) { log.line("error: " + what); };

    try {
      mad::serve(*transport, responder, g_stop, hooks);
    } catch (const mad::TransportError& e) {
      log.line(std::string("error: the port stopped working: ") + e.what());
      return kExitAttach;
    }
    log.line("ibsdn-switch-agent: stopping on signal; " + std::to_string(responder.table().size()) +
             " entries were installed; " + std::to_string(writer_check->refused()) +
             " FlowMods refused from senders that may not write");
    return kExitStopped;
  } catch (const std::exception& e) {
    log.line(std::string("error: internal: ") + e.what());
    return kExitInternal;
  }
}
