#include "mad/mad_client.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <random>
#include <unordered_map>

#include "mad/mad_codec.hpp"
#include "mad/raw_header.hpp"

namespace ibsdn::mad {
namespace {

using Clock = std::chrono::steady_clock;

std::string lid_text(Lid lid) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%04x", lid.value());
  return buf;
}

std::string status_text(std::uint16_t s) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%04x", s);
  return std::string(to_string(static_cast<Status>(s))) + " (status " + buf + ")";
}

/// "LID 0x0012 Set FlowMod" for messages.
std::string what(Lid lid, const MadBytes& req) {
  const auto h = peek_header(req);
  return "LID " + lid_text(lid) + " " + method_name(h->method) + " " + attribute_name(h->attr_id);
}

}  // namespace

MadClient::MadClient(MadTransport& transport, ClientOptions opts)
    : transport_(transport),
      opts_(opts),
      next_tid_(opts.tid_base != 0 ? 1u : static_cast<std::uint32_t>(std::random_device{}())) {}

std::uint32_t MadClient::take_tid() {
  if (opts_.tid_base == 0) return next_tid_++;
  constexpr std::uint32_t kCounterMask = 0x00FFFFFFu;
  if ((next_tid_ & kCounterMask) == 0) next_tid_ = 1;  // never the base itself
  return (opts_.tid_base & ~kCounterMask) | (next_tid_++ & kCounterMask);
}

std::vector<Result<ReceivedMad>> MadClient::exchange(std::vector<Request>& reqs) {
  struct Flight {
    std::size_t index;
    Clock::time_point deadline;
    int attempts;
    std::string last_failure;  // why the last attempt failed early, if it did
  };
  std::vector<std::optional<Result<ReceivedMad>>> out(reqs.size());
  std::unordered_map<std::uint32_t, Flight> flying;  // by the low half of the TID
  const std::size_t window = std::max<std::size_t>(1, opts_.window);
  std::size_t next = 0;
  std::size_t done = 0;

  auto finish = [&](std::size_t i, Result<ReceivedMad> r) {
    out[i] = std::move(r);
    ++done;
  };
  auto launch = [&](std::size_t i, std::uint32_t tid, int attempts) {
    try {
      transport_.send(reqs[i].to, reqs[i].bytes, opts_.timeout);
    } catch (const TransportError& e) {
      finish(i, ClientError{ClientErrorKind::kTransport, Status::kOk,
                            what(reqs[i].to, reqs[i].bytes) + ": " + e.what()});
      return;
    }
    ++stats_.sent;
    if (attempts > 1) ++stats_.retransmits;
    flying[tid] = Flight{i, Clock::now() + opts_.timeout, attempts, {}};
  };
  auto accept = [&](const ReceivedMad& in) {
    const auto h = peek_header(std::span<const std::uint8_t>(in.bytes.data(), in.length));
    auto it = h ? flying.find(tid_low(h->tid)) : flying.end();
    if (it == flying.end()) {
      ++stats_.strays;
      return;
    }
    Flight& f = it->second;
    const Request& rq = reqs[f.index];
    const auto sent = peek_header(rq.bytes);
    if (in.status != 0) {
      // Our request handed back: the fabric could not deliver it or nobody answered in time.
      if (h->response()) {
        ++stats_.strays;
        return;
      }
      f.last_failure = "the fabric returned the request undelivered (transport status " +
                       std::to_string(in.status) + ")";
      f.deadline = Clock::now();
      return;
    }
    if (!h->response() || in.from != rq.to || h->attr_id != sent->attr_id) {
      ++stats_.strays;
      return;
    }
    finish(f.index, in);
    flying.erase(it);
  };

  while (done < reqs.size()) {
    while (flying.size() < window && next < reqs.size()) {
      const std::size_t i = next++;
      launch(i, tid_low(peek_header(reqs[i].bytes)->tid), 1);
    }
    if (flying.empty()) continue;

    auto earliest = Clock::time_point::max();
    for (const auto& [tid, f] : flying) earliest = std::min(earliest, f.deadline);
    const auto wait = std::chrono::ceil<std::chrono::milliseconds>(
        std::max(Clock::duration::zero(), earliest - Clock::now()));
    try {
      if (auto in = transport_.receive(wait)) accept(*in);
    } catch (const TransportError& e) {
      for (const auto& [tid, f] : flying) {
        finish(f.index, ClientError{ClientErrorKind::kTransport, Status::kOk,
                                    what(reqs[f.index].to, reqs[f.index].bytes) + ": " + e.what()});
      }
      flying.clear();
      continue;
    }

    const auto now = Clock::now();
    std::vector<std::uint32_t> expired;
    for (const auto& [tid, f] : flying) {
      if (f.deadline <= now) expired.push_back(tid);
    }
    for (std::uint32_t tid : expired) {
      Flight f = std::move(flying.at(tid));
      flying.erase(tid);
      if (f.attempts <= opts_.retries) {
        // Same TID again: a late answer to an earlier attempt completes the request too.
        launch(f.index, tid, f.attempts + 1);
        continue;
      }
      const Request& rq = reqs[f.index];
      finish(f.index,
             ClientError{ClientErrorKind::kTimeout, Status::kOk,
                         what(rq.to, rq.bytes) + ": no answer after " + std::to_string(f.attempts) +
                             " attempt(s) of " + std::to_string(opts_.timeout.count()) + " ms" +
                             (f.last_failure.empty() ? "" : "; " + f.last_failure)});
    }
  }

  std::vector<Result<ReceivedMad>> results;
  results.reserve(out.size());
  for (auto& r : out) results.push_back(std::move(*r));
  return results;
}

std::vector<Result<SdnMad>> MadClient::transact(std::vector<Request>& reqs) {
  std::vector<Result<ReceivedMad>> replies = exchange(reqs);
  std::vector<Result<SdnMad>> out;
  out.reserve(replies.size());
  for (std::size_t i = 0; i < replies.size(); ++i) {
    if (!replies[i]) {
      out.emplace_back(replies[i].error());
      continue;
    }
    const ReceivedMad& in = replies[i].value();
    const std::span<const std::uint8_t> bytes(in.bytes.data(), in.length);
    const auto h = peek_header(bytes);
    if (h->status != 0) {
      out.emplace_back(
          ClientError{ClientErrorKind::kStatus, static_cast<Status>(h->status),
                      what(reqs[i].to, reqs[i].bytes) + " refused: " + status_text(h->status)});
      continue;
    }
    DecodeResult d = decode(bytes);
    if (const auto* err = std::get_if<DecodeError>(&d)) {
      out.emplace_back(ClientError{ClientErrorKind::kBadResponse, err->status,
                                   what(reqs[i].to, reqs[i].bytes) +
                                       ": undecodable reply: " + err->reason + " (at byte " +
                                       std::to_string(err->offset) + ")"});
      continue;
    }
    out.emplace_back(std::move(std::get<SdnMad>(d)));
  }
  return out;
}

MadClient::Request MadClient::request(Lid lid, std::uint64_t key, Method method, AttributeId attr,
                                      std::uint32_t attr_mod, Payload payload) {
  SdnMad m;
  m.hdr.tid = take_tid();
  m.hdr.method = method;
  m.hdr.attr_id = attr;
  m.hdr.attr_mod = attr_mod;
  m.key = key;
  m.payload = std::move(payload);
  return Request{lid, encode(m)};
}

Result<SdnMad> MadClient::single(Lid lid, std::uint64_t key, Method method, AttributeId attr,
                                 std::uint32_t attr_mod, Payload payload) {
  std::vector<Request> reqs;
  try {
    reqs.push_back(request(lid, key, method, attr, attr_mod, std::move(payload)));
  } catch (const std::invalid_argument& e) {
    return ClientError{
        ClientErrorKind::kInvalidRequest, Status::kOk,
        "LID " + lid_text(lid) + " " + method_name(static_cast<std::uint8_t>(method)) + " " +
            attribute_name(static_cast<std::uint16_t>(attr)) + ": cannot encode: " + e.what()};
  }
  return std::move(transact(reqs).front());
}

namespace {

template <typename T>
Result<T> payload_of(Result<SdnMad> r, Lid lid, const char* attr) {
  if (!r) return r.error();
  if (auto* p = std::get_if<T>(&r.value().payload)) return std::move(*p);
  return ClientError{ClientErrorKind::kBadResponse, Status::kOk,
                     "LID " + lid_text(lid) + ": reply to " + attr + " carries another payload"};
}

}  // namespace

Result<FlowMod> MadClient::flow_mod(Lid lid, std::uint64_t key, const FlowMod& mod) {
  return payload_of<FlowMod>(single(lid, key, Method::kSet, AttributeId::kFlowMod, 0, mod), lid,
                             "FlowMod");
}

Result<Barrier> MadClient::barrier(Lid lid, std::uint64_t key) {
  return payload_of<Barrier>(single(lid, key, Method::kGet, AttributeId::kBarrier, 0, Barrier{}),
                             lid, "Barrier");
}

Result<TableInfo> MadClient::table_info(Lid lid, std::uint64_t key) {
  return payload_of<TableInfo>(
      single(lid, key, Method::kGet, AttributeId::kTableInfo, 0, TableInfo{}), lid, "TableInfo");
}

Result<TableRead> MadClient::read_table(Lid lid, std::uint64_t key) {
  for (int attempt = 0; attempt <= opts_.read_restarts; ++attempt) {
    auto first = payload_of<FlowStatsReply>(
        single(lid, key, Method::kGet, AttributeId::kFlowStats, 0, FlowStatsRequest{}), lid,
        "FlowStats");
    if (!first) return first.error();
    const FlowStatsReply& p0 = first.value();
    TableRead read;
    read.generation = p0.generation;
    read.restarts = attempt;
    read.entries = p0.entries;
    const std::size_t total = p0.total;
    const std::size_t step = p0.entries.size();
    if (step >= total) {
      read.entries.resize(total);
      return read;
    }
    if (step == 0) {
      return ClientError{ClientErrorKind::kBadResponse, Status::kOk,
                         "LID " + lid_text(lid) +
                             ": FlowStats page 0 is empty but the table holds " +
                             std::to_string(total) + " entries"};
    }
    std::vector<Request> pages;
    for (std::size_t start = step; start < total; start += step) {
      pages.push_back(request(lid, key, Method::kGet, AttributeId::kFlowStats,
                              static_cast<std::uint32_t>(start), FlowStatsRequest{}));
    }
    std::vector<Result<SdnMad>> replies = transact(pages);
    bool changed = false;
    for (std::size_t k = 0; k < replies.size() && !changed; ++k) {
      auto page = payload_of<FlowStatsReply>(std::move(replies[k]), lid, "FlowStats");
      if (!page) return page.error();
      const FlowStatsReply& p = page.value();
      if (p.generation != read.generation || p.total != total) {
        changed = true;
        break;
      }
      const std::size_t start = (k + 1) * step;
      if (p.entries.size() != std::min(step, total - start)) {
        return ClientError{ClientErrorKind::kBadResponse, Status::kOk,
                           "LID " + lid_text(lid) + ": FlowStats page at " + std::to_string(start) +
                               " holds " + std::to_string(p.entries.size()) + " entries"};
      }
      read.entries.insert(read.entries.end(), p.entries.begin(), p.entries.end());
    }
    if (!changed) return read;
  }
  return ClientError{ClientErrorKind::kUnstable, Status::kOk,
                     "LID " + lid_text(lid) + ": the flow table changed during each of " +
                         std::to_string(opts_.read_restarts + 1) + " reads"};
}

Result<RawReply> MadClient::raw(Lid lid, std::span<const std::uint8_t> bytes) {
  if (bytes.size() > kMadSize) {
    return ClientError{ClientErrorKind::kInvalidRequest, Status::kOk,
                       "raw MAD of " + std::to_string(bytes.size()) + " bytes (max 256)"};
  }
  Request rq{lid, {}};
  std::copy(bytes.begin(), bytes.end(), rq.bytes.begin());
  std::vector<Request> reqs{rq};
  Result<ReceivedMad> r = std::move(exchange(reqs).front());
  if (!r) return r.error();
  RawReply out;
  out.bytes = r.value().bytes;
  out.length = r.value().length;
  out.status = static_cast<Status>(peek_header(out.bytes)->status);
  return out;
}

template <typename T>
std::vector<Result<T>> MadClient::gets(std::span<const Lid> lids, std::uint64_t key,
                                       AttributeId attr, Payload payload, const char* attr_name) {
  std::vector<Request> reqs;
  reqs.reserve(lids.size());
  for (const Lid l : lids) reqs.push_back(request(l, key, Method::kGet, attr, 0, payload));
  std::vector<Result<SdnMad>> replies = transact(reqs);
  std::vector<Result<T>> out;
  out.reserve(replies.size());
  for (std::size_t i = 0; i < replies.size(); ++i) {
    out.push_back(payload_of<T>(std::move(replies[i]), lids[i], attr_name));
  }
  return out;
}

std::vector<Result<Barrier>> MadClient::barriers(std::span<const Lid> lids, std::uint64_t key) {
  return gets<Barrier>(lids, key, AttributeId::kBarrier, Barrier{}, "Barrier");
}

std::vector<Result<TableInfo>> MadClient::table_infos(std::span<const Lid> lids,
                                                      std::uint64_t key) {
  return gets<TableInfo>(lids, key, AttributeId::kTableInfo, TableInfo{}, "TableInfo");
}

std::vector<Result<FlowMod>> MadClient::flow_mods(std::span<const FlowModJob> jobs) {
  std::vector<std::optional<Result<FlowMod>>> out(jobs.size());
  std::vector<Request> reqs;
  std::vector<std::size_t> job_of;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    try {
      reqs.push_back(
          request(jobs[i].lid, jobs[i].key, Method::kSet, AttributeId::kFlowMod, 0, jobs[i].mod));
      job_of.push_back(i);
    } catch (const std::invalid_argument& e) {
      out[i] =
          ClientError{ClientErrorKind::kInvalidRequest, Status::kOk,
                      "LID " + lid_text(jobs[i].lid) + " Set FlowMod: cannot encode: " + e.what()};
    }
  }
  std::vector<Result<SdnMad>> replies = transact(reqs);
  for (std::size_t k = 0; k < replies.size(); ++k) {
    out[job_of[k]] = payload_of<FlowMod>(std::move(replies[k]), jobs[job_of[k]].lid, "FlowMod");
  }
  std::vector<Result<FlowMod>> results;
  results.reserve(out.size());
  for (auto& r : out) results.push_back(std::move(*r));
  return results;
}

}  // namespace ibsdn::mad
