// ibsdn-madtool: talks the SDN MAD class 0x09 to one switch agent, by LID, the way the controller
// does: add / delete flows, dump the table in ovs-ofctl form, table info, barrier, raw bytes for
// malformed-MAD tests, and a throughput benchmark.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <exception>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "flowtable/flow_text.hpp"
#include "mad/agent/cli_common.hpp"
#include "mad/mad_client.hpp"
#include "mad/umad_transport.hpp"

namespace {

namespace mad = ibsdn::mad;
namespace cli = ibsdn::mad::cli;
using ibsdn::Lid;

constexpr int kExitOk = 0;
constexpr int kExitRefused = 1;
constexpr int kExitUsage = 2;
constexpr int kExitTransport = 3;
constexpr int kExitTimeout = 4;
constexpr int kExitBadReply = 5;

constexpr const char* kExitCodes =
    "Exit codes:\n"
    "  0  done (raw: an answer came, whatever its status)\n"
    "  1  the switch refused the request (its status is printed)\n"
    "  2  bad command line, key file, FLOW text or HEXFILE\n"
    "  3  libibumad: cannot open / register the port\n"
    "  4  no answer after every retry\n"
    "  5  an answer that does not decode, or a table that kept changing while read\n";

int exit_code(const mad::ClientError& e) {
  switch (e.kind) {
    case mad::ClientErrorKind::kStatus:
      return kExitRefused;
    case mad::ClientErrorKind::kTimeout:
      return kExitTimeout;
    case mad::ClientErrorKind::kTransport:
      return kExitTransport;
    case mad::ClientErrorKind::kInvalidRequest:
      return kExitUsage;
    case mad::ClientErrorKind::kBadResponse:
    case mad::ClientErrorKind::kUnstable:
      return kExitBadReply;
  }
  return kExitBadReply;
}

int report(const mad::ClientError& e) {
  std::fprintf(stderr, "ibsdn-madtool: %s\n", e.message.c_str());
  return exit_code(e);
}

/// FLOW text for deletes: actions are irrelevant there, so they may be left out.
ibsdn::FlowEntry parse_match_flow(const std::string& text) {
  if (text.find("actions=") != std::string::npos) return ibsdn::parse_flow(text);
  return ibsdn::parse_flow(text + " actions=output:1");
}

std::string status_line(mad::Status s) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "status 0x%04x (%s)", static_cast<unsigned>(s),
                std::string(mad::to_string(s)).c_str());
  return buf;
}

struct Options {
  std::string ca;
  int port = 0;
  cli::KeySource key;
  std::string lid_text;
  int timeout_ms = 250;
  int retries = 3;
};

struct BenchOptions {
  std::size_t count = 1000;        // FlowMods per switch
  std::size_t window = 64;         // in flight in the pipelined runs
  std::size_t round_trips = 1000;  // TableInfo round trips for the baseline
  std::vector<std::string> lids;   // switches for the multi-switch run (default: --lid)
};

double per_second(std::size_t n, std::chrono::steady_clock::duration d) {
  return static_cast<double>(n) / std::chrono::duration<double>(d).count();
}

/// Adds `count` entries to each switch through `client`'s window, measures, then removes them.
/// Returns FlowMods per second, or an error code.
std::variant<double, int> timed_adds(mad::MadClient& client, mad::MadClient& cleaner,
                                     const std::vector<Lid>& lids, std::uint64_t key,
                                     std::size_t count, std::uint8_t num_ports) {
  constexpr std::uint64_t kBenchCookie = 0xbe4c;
  std::vector<mad::FlowModJob> jobs;
  jobs.reserve(count * lids.size());
  for (std::size_t i = 0; i < count; ++i) {
    for (Lid lid : lids) {
      mad::FlowModJob j;
      j.lid = lid;
      j.key = key;
      j.mod.command = mad::FlowModCommand::kAdd;
      j.mod.cookie = kBenchCookie;
      j.mod.priority = 100;
      j.mod.match = ibsdn::FlowMatch::exact_dlid(Lid(static_cast<std::uint16_t>(1 + i)));
      j.mod.action.output = ibsdn::PortNum(static_cast<std::uint8_t>(1 + i % num_ports));
      jobs.push_back(j);
    }
  }
  const auto t0 = std::chrono::steady_clock::now();
  const auto results = client.flow_mods(jobs);
  const auto elapsed = std::chrono::steady_clock::now() - t0;
  for (const auto& r : results) {
    if (!r) return report(r.error());
  }
  for (Lid lid : lids) {
    mad::FlowMod del;
    del.command = mad::FlowModCommand::kDelete;
    del.cookie = kBenchCookie;
    del.cookie_mask = ~std::uint64_t{0};
    if (auto r = cleaner.flow_mod(lid, key, del); !r) return report(r.error());
  }
  return per_second(jobs.size(), elapsed);
}

int bench(mad::MadTransport& t, const Options& o, const BenchOptions& b, Lid first,
          std::uint64_t key) {
  std::vector<Lid> lids;
  try {
    for (const std::string& text : b.lids) lids.push_back(cli::parse_lid(text));
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "ibsdn-madtool: %s\n", e.what());
    return kExitUsage;
  }
  if (lids.empty()) lids.push_back(first);

  mad::ClientOptions seq;
  seq.timeout = std::chrono::milliseconds(o.timeout_ms);
  seq.retries = o.retries;
  seq.window = 1;
  mad::ClientOptions piped = seq;
  piped.window = b.window;
  mad::MadClient sequential(t, seq);
  mad::MadClient pipelined(t, piped);

  std::uint8_t num_ports = 254;
  for (Lid lid : lids) {
    auto info = sequential.table_info(lid, key);
    if (!info) return report(info.error());
    if (info.value().capacity - info.value().used < b.count) {
      std::fprintf(stderr, "ibsdn-madtool: LID 0x%04x has room for %u entries, --count is %zu\n",
                   lid.value(), info.value().capacity - info.value().used, b.count);
      return kExitUsage;
    }
    num_ports = std::min(num_ports, info.value().num_ports);
  }

  const auto t0 = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < b.round_trips; ++i) {
    if (auto r = sequential.table_info(lids.front(), key); !r) return report(r.error());
  }
  const double rtt = per_second(b.round_trips, std::chrono::steady_clock::now() - t0);

  struct Run {
    std::string name;
    double rate;
  };
  std::vector<Run> runs;
  auto run = [&](const std::string& name, mad::MadClient& c, const std::vector<Lid>& where) {
    auto r = timed_adds(c, sequential, where, key, b.count, num_ports);
    if (const int* code = std::get_if<int>(&r)) return *code;
    runs.push_back({name, std::get<double>(r)});
    return 0;
  };
  const std::vector<Lid> one{lids.front()};
  const std::string w = "window " + std::to_string(b.window);
  if (int rc = run("FlowMod, 1 switch, sequential", sequential, one); rc) return rc;
  if (int rc = run("FlowMod, 1 switch, " + w, pipelined, one); rc) return rc;
  if (lids.size() > 1) {
    if (int rc =
            run("FlowMod, " + std::to_string(lids.size()) + " switches, " + w, pipelined, lids);
        rc) {
      return rc;
    }
  }

  std::printf("%-40s %12s %8s\n", "measurement", "per second", "ratio");
  std::printf("%-40s %12.0f %8.2f\n", "TableInfo round trip, 1 switch (baseline)", rtt, 1.0);
  for (const Run& r : runs)
    std::printf("%-40s %12.0f %8.2f\n", r.name.c_str(), r.rate, r.rate / rtt);
  std::printf(
      "(%zu FlowMods per switch, %zu round trips; retransmits %llu, strays %llu)\n", b.count,
      b.round_trips,
      static_cast<unsigned long long>(sequential.stats().retransmits +
                                      pipelined.stats().retransmits),
      static_cast<unsigned long long>(sequential.stats().strays + pipelined.stats().strays));
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "ibsdn-madtool: manage one switch's flow table over MAD class 0x09.\nFLOW is ovs-ofctl "
      "style: 'cookie=0x2a, priority=100, slid=0x12, dlid=0x40 actions=output:7'.\nUnder ibsim "
      "run it with LD_PRELOAD=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so and "
      "SIM_HOST=<an HCA>.\nA switch agent takes FlowMods (add, del, del-cookie, bench) only from "
      "the master SM's LID and the LIDs it was given with --allow-lid (or any, --any-writer)."};
  app.footer(kExitCodes);
  app.require_subcommand(1);
  Options o;
  app.add_option("--ca", o.ca, "CA name (default: libibumad's default CA)");
  app.add_option("--port", o.port, "port number (default: the first active port)");
  auto* key_opt = app.add_option("--key", o.key.key_text, "the switch's authentication key, hex");
  auto* key_file_opt = app.add_option("--key-file", o.key.key_file,
                                      "read the key from this file (one line, 0x-hex or decimal; "
                                      "chmod 600, as for ibsdn-switch-agent)");
  auto* no_key_opt =
      app.add_flag("--no-key", o.key.no_key, "send key 0 (a switch agent run with --no-key)");
  key_opt->excludes(key_file_opt, no_key_opt);
  key_file_opt->excludes(no_key_opt);
  app.add_option("--lid", o.lid_text, "the switch's LID (decimal or 0x-hex)")->required();
  app.add_option("--timeout", o.timeout_ms, "per-attempt timeout in ms")
      ->check(CLI::Range(1, 60000))
      ->capture_default_str();
  app.add_option("--retries", o.retries, "attempts after the first")
      ->check(CLI::Range(0, 100))
      ->capture_default_str();

  std::string flow_text;
  std::string cookie_text;
  std::string hex_path;
  BenchOptions b;
  auto* add = app.add_subcommand("add", "add (or replace) a flow entry");
  add->add_option("FLOW", flow_text, "the entry")->required();
  auto* del = app.add_subcommand("del", "delete the entry with exactly this match and priority");
  del->add_option("FLOW", flow_text, "match and priority (actions may be left out)")->required();
  auto* del_cookie = app.add_subcommand("del-cookie", "delete every entry with this cookie");
  del_cookie->add_option("C", cookie_text, "cookie, hex")->required();
  auto* dump = app.add_subcommand("dump", "print the table, one ovs-ofctl style line per entry");
  auto* info = app.add_subcommand("info", "capacity, use, generation, level, counters");
  auto* barrier = app.add_subcommand("barrier", "wait until earlier FlowMods are applied");
  auto* raw = app.add_subcommand("raw", "send the bytes of HEXFILE and print the status");
  raw->add_option("HEXFILE", hex_path, "hex bytes, whitespace and # comments ignored")->required();
  auto* bench_cmd =
      app.add_subcommand("bench", "FlowMods per second against TableInfo round trips per second");
  bench_cmd->add_option("--count", b.count, "FlowMods per switch")->capture_default_str();
  bench_cmd->add_option("--window", b.window, "requests in flight when pipelined")
      ->check(CLI::Range(std::size_t{1}, std::size_t{4096}))
      ->capture_default_str();
  bench_cmd->add_option("--round-trips", b.round_trips, "TableInfo round trips")
      ->capture_default_str();
  bench_cmd->add_option("--lids", b.lids, "switches for the multi-switch run (default: --lid)")
      ->delimiter(',');

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }

  Lid lid;
  std::uint64_t key = 0;
  try {
    lid = cli::parse_lid(o.lid_text);
    if (!raw->parsed())
      key = cli::resolve_key(o.key, "ibsdn-madtool");  // raw sends its own key bytes
  } catch (const std::exception& e) {                  // std::invalid_argument, mad::KeyFileError
    std::fprintf(stderr, "ibsdn-madtool: %s\n", e.what());
    return kExitUsage;
  }

  std::unique_ptr<mad::UmadTransport> transport;
  try {
    mad::UmadOptions uo;
    uo.ca = o.ca;
    uo.port = o.port;
    transport = std::make_unique<mad::UmadTransport>(uo);
  } catch (const mad::TransportError& e) {
    std::fprintf(stderr, "ibsdn-madtool: %s\n", e.what());
    return kExitTransport;
  }
  mad::ClientOptions co;
  co.timeout = std::chrono::milliseconds(o.timeout_ms);
  co.retries = o.retries;
  mad::MadClient client(*transport, co);

  try {
    if (add->parsed() || del->parsed()) {
      mad::FlowMod fm;
      ibsdn::FlowEntry e;
      try {
        e = add->parsed() ? ibsdn::parse_flow(flow_text) : parse_match_flow(flow_text);
      } catch (const std::invalid_argument& ex) {
        std::fprintf(stderr, "ibsdn-madtool: %s\n", ex.what());
        return kExitUsage;
      }
      fm.command = add->parsed() ? mad::FlowModCommand::kAdd : mad::FlowModCommand::kDeleteStrict;
      fm.cookie = e.cookie;
      fm.priority = e.priority;
      fm.match = e.match;
      fm.action = e.action;
      auto r = client.flow_mod(lid, key, fm);
      if (!r) return report(r.error());
      std::printf("ok, affected=%u\n", r.value().affected);
    } else if (del_cookie->parsed()) {
      mad::FlowMod fm;
      fm.command = mad::FlowModCommand::kDelete;
      fm.cookie = cli::parse_hex_u64(cookie_text, "cookie");
      fm.cookie_mask = ~std::uint64_t{0};
      auto r = client.flow_mod(lid, key, fm);
      if (!r) return report(r.error());
      std::printf("ok, affected=%u\n", r.value().affected);
    } else if (dump->parsed()) {
      auto r = client.read_table(lid, key);
      if (!r) return report(r.error());
      for (const auto& e : r.value().entries) std::printf("%s\n", ibsdn::format_flow(e).c_str());
    } else if (info->parsed()) {
      auto r = client.table_info(lid, key);
      if (!r) return report(r.error());
      const mad::TableInfo& t = r.value();
      std::printf(
          "capacity=%u used=%u generation=%llu level=%s num_ports=%u lookups=%llu matched=%llu "
          "missed=%llu\n",
          t.capacity, t.used, static_cast<unsigned long long>(t.generation),
          std::string(ibsdn::to_string(t.level)).c_str(), static_cast<unsigned>(t.num_ports),
          static_cast<unsigned long long>(t.lookups), static_cast<unsigned long long>(t.matched),
          static_cast<unsigned long long>(t.missed));
    } else if (barrier->parsed()) {
      auto r = client.barrier(lid, key);
      if (!r) return report(r.error());
      std::printf("generation=%llu\n", static_cast<unsigned long long>(r.value().generation));
    } else if (raw->parsed()) {
      std::string bytes;
      try {
        bytes = cli::read_hex_file(hex_path);
      } catch (const std::runtime_error& ex) {
        std::fprintf(stderr, "ibsdn-madtool: %s\n", ex.what());
        return kExitUsage;
      }
      auto r = client.raw(
          lid, std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
      if (!r) return report(r.error());
      std::printf("%s\n", status_line(r.value().status).c_str());
    } else if (bench_cmd->parsed()) {
      return bench(*transport, o, b, lid, key);
    }
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "ibsdn-madtool: %s\n", e.what());
    return kExitUsage;
  }
  return kExitOk;
}
