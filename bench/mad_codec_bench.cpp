// Cost of the SDN MAD codec per MAD, against the cost of copying the same 256 bytes measured in
// the same run: encode and decode of a FlowMod ADD, a full FlowStats page and a TableInfo reply.
// Plain chrono loops, median of several runs; a report, not a pass/fail check.
//
//   mad_codec_bench            7 runs of 200000 iterations per case
//   mad_codec_bench --quick    3 runs of 20000, for CI smoke runs
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include "mad/mad_codec.hpp"

namespace ibsdn::mad {
namespace {

// Keeps the compiler from proving a result unused and deleting the loop that made it.
// The address escapes into an opaque asm statement that may read and write all memory.
template <typename T>
void keep(T& value) {
  asm volatile("" : : "r"(&value) : "memory");
}

template <typename F>
double median_ns_per_op(int runs, int iters, F&& op) {
  std::vector<double> t;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) op();
    const auto t1 = std::chrono::steady_clock::now();
    t.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / iters);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

SdnMad flow_mod_add() {
  SdnMad m;
  m.hdr.method = Method::kSet;
  m.hdr.attr_id = AttributeId::kFlowMod;
  m.hdr.tid = 0x1234;
  m.key = 0x1122334455667788;
  FlowMod fm;
  fm.cookie = 0x2a;
  fm.priority = 100;
  fm.match = FlowMatch::exact_pair(Lid{0x12}, Lid{0x40});
  fm.action.output = PortNum{7};
  m.payload = fm;
  return m;
}

SdnMad stats_page() {
  SdnMad m;
  m.hdr.method = Method::kGetResp;
  m.hdr.attr_id = AttributeId::kFlowStats;
  FlowStatsReply page;
  page.total = 1000;
  page.generation = 42;
  for (std::size_t i = 0; i < kMaxStatsEntriesPerMad; ++i) {
    FlowEntry e;
    e.cookie = 7;
    e.priority = 100;
    e.match = FlowMatch::exact_pair(Lid{static_cast<std::uint16_t>(i + 1)}, Lid{0x40});
    e.action.output = PortNum{static_cast<std::uint8_t>(i + 1)};
    e.n_packets = 1000 * i;
    page.entries.push_back(e);
  }
  m.payload = page;
  return m;
}

SdnMad table_info() {
  SdnMad m;
  m.hdr.method = Method::kGetResp;
  m.hdr.attr_id = AttributeId::kTableInfo;
  m.payload = TableInfo{4096, 120, 9, FlowDefinitionLevel::kSlidDlidSlQp, 36, 1000, 900, 100};
  return m;
}

}  // namespace
}  // namespace ibsdn::mad

int main(int argc, char** argv) {
  using namespace ibsdn::mad;
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  const int runs = quick ? 3 : 7;
  const int iters = quick ? 20000 : 200000;

  MadBytes src{};
  MadBytes dst{};
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<std::uint8_t>(i);
  const double copy_ns = median_ns_per_op(runs, iters, [&] {
    keep(src);
    std::memcpy(dst.data(), src.data(), kMadSize);
    keep(dst);
  });

  struct Case {
    const char* name;
    SdnMad mad;
  };
  const Case cases[] = {{"FlowMod ADD", flow_mod_add()},
                        {"FlowStats page", stats_page()},
                        {"TableInfo", table_info()}};
  std::printf("memcpy of %zu bytes: %.1f ns (baseline)\n", kMadSize, copy_ns);
  std::printf("%-16s %10s %8s %10s %8s\n", "MAD", "encode ns", "x copy", "decode ns", "x copy");
  for (const Case& c : cases) {
    const MadBytes wire = encode(c.mad);
    const double enc = median_ns_per_op(runs, iters, [&] {
      MadBytes b = encode(c.mad);
      keep(b);
    });
    const double dec = median_ns_per_op(runs, iters, [&] {
      DecodeResult r = decode(wire);
      keep(r);
    });
    std::printf("%-16s %10.1f %8.1f %10.1f %8.1f\n", c.name, enc, enc / copy_ns, dec,
                dec / copy_ns);
  }
  return 0;
}
