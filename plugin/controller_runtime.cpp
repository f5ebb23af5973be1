#include "plugin/controller_runtime.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <utility>

#include "flowtable/match.hpp"
#include "mad/mad_codec.hpp"
#include "mad/raw_header.hpp"
#include "plugin/sdn_engine.hpp"

namespace ibsdn::plugin {
namespace {

// Queued events beyond this are dropped (and counted): a flood of MADs must not exhaust memory.
constexpr std::size_t kMaxQueuedEvents = 1u << 16;

std::string lid_text(Lid l) {
  return "LID " + std::to_string(l.value());
}

std::string hex32(std::uint32_t v) {
  char buf[12];
  std::snprintf(buf, sizeof(buf), "0x%08x", v);
  return buf;
}

std::string ms_since(Clock::time_point start) {
  const auto us =
      std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count();
  return std::to_string(us / 1000) + "." + std::to_string((us % 1000) / 100) + " ms";
}

/// Every LID assigned in `f`: switches' and HCA ports'.
std::vector<Lid> assigned_lids(const AbiFabric& f) {
  std::vector<Lid> out;
  for (std::uint32_t i = 0; i < f.fabric.num_nodes(); ++i) {
    const NodeIdx n(i);
    const Node& node = f.fabric.node(n);
    if (node.is_switch()) {
      if (const Lid l = f.lids.lid(n, PortNum(0)); l.value() != 0) out.push_back(l);
      continue;
    }
    for (const Port& p : node.ports) {
      if (const Lid l = f.lids.lid(n, p.num); l.value() != 0) out.push_back(l);
    }
  }
  return out;
}

std::string table_info_text(const mad::TableInfo& t) {
  return "capacity " + std::to_string(t.capacity) + ", used " + std::to_string(t.used) +
         ", generation " + std::to_string(t.generation) + ", match level " +
         std::string(to_string(t.level)) + ", " + std::to_string(t.num_ports) + " ports, " +
         std::to_string(t.lookups) + " lookups (" + std::to_string(t.matched) + " matched, " +
         std::to_string(t.missed) + " missed)";
}

}  // namespace

Controller::Controller(const osmsdn_glue_ops& ops, Options options)
    : glue_(ops), options_(std::move(options)) {
  worker_ = std::thread([this] { run(); });
}

Controller::~Controller() {
  stop();
}

void Controller::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (worker_.joinable()) worker_.join();
}

void Controller::compute_lfts(const osmsdn_fabric& fabric,
                              std::span<const osmsdn_lft> tables) const {
  const auto start = Clock::now();
  AbiFabric f = fabric_from_abi(fabric);
  const SdnTables t = compute_sdn_tables(f);
  write_tables(f, t.lfts, tables);
  glue_.info("sdn engine: " + t.algorithm + " on " + t.topology + "; " +
             std::to_string(tables.size()) + " switch tables, " +
             std::to_string(t.lfts.lids.max_lid().value()) + " LIDs, in " + ms_since(start));
}

void Controller::fabric_updated(const osmsdn_fabric& fabric, std::span<const osmsdn_lft> tables,
                                std::string engine) {
  SubnetUp s;
  if (fabric.num_nodes > 0 && fabric.nodes == nullptr) throw std::invalid_argument("no nodes");
  if (fabric.num_ports > 0 && fabric.ports == nullptr) throw std::invalid_argument("no ports");
  s.nodes.assign(fabric.nodes, fabric.nodes + fabric.num_nodes);
  s.ports.assign(fabric.ports, fabric.ports + fabric.num_ports);
  s.sm_lid = fabric.sm_lid;
  s.lft_switches.reserve(tables.size());
  s.lft_entries.reserve(tables.size());
  for (const osmsdn_lft& t : tables) {
    if (t.size > 0 && t.ports == nullptr) throw std::invalid_argument("a table without entries");
    s.lft_switches.push_back(t.switch_guid);
    s.lft_entries.emplace_back(t.ports, t.ports + t.size);
  }
  s.engine = std::move(engine);
  enqueue(std::move(s));
}

void Controller::mad_received(Lid slid, const mad::MadBytes& bytes) {
  enqueue(MadIn{slid, bytes, MadIn::Kind::kResponse});
}

void Controller::mad_failed(Lid dlid, const mad::MadBytes& request, bool timed_out) {
  enqueue(MadIn{dlid, request, timed_out ? MadIn::Kind::kTimeout : MadIn::Kind::kSendError});
}

void Controller::enqueue(Event e) {
  {
    std::lock_guard lock(mu_);
    if (!accepting_) return;
    if (queue_.size() >= kMaxQueuedEvents) {
      ++dropped_;
      return;
    }
    queue_.push_back(std::move(e));
  }
  cv_.notify_one();
}

void Controller::run() {
  std::unique_lock lock(mu_);
  std::optional<Clock::time_point> stop_by;
  std::size_t dropped_reported = 0;
  for (;;) {
    if (stopping_ && !stop_by) {
      stop_by = Clock::now() + options_.mad_timeout;
      draining_ = true;
      retry_at_.reset();  // no new rounds while draining
    }
    if (!queue_.empty()) {
      std::deque<Event> batch;
      batch.swap(queue_);
      const std::size_t dropped = dropped_;
      lock.unlock();
      if (dropped != dropped_reported) {
        glue_.error(std::to_string(dropped - dropped_reported) +
                    " events dropped: the controller's queue was full");
        dropped_reported = dropped;
      }
      for (Event& e : batch) {
        // Nothing may escape the worker: an exception here would terminate opensm.
        try {
          std::visit([this](auto& ev) { handle(ev); }, e);
        } catch (const std::exception& ex) {
          glue_.error(std::string("controller: ") + ex.what());
        } catch (...) {
          glue_.error("controller: unknown exception");
        }
      }
      lock.lock();
      continue;
    }
    lock.unlock();
    const auto now = Clock::now();
    try {
      on_timers(now);
    } catch (const std::exception& ex) {
      glue_.error(std::string("controller: ") + ex.what());
    } catch (...) {
      glue_.error("controller: unknown exception");
    }
    lock.lock();
    if (!queue_.empty()) continue;
    if (stopping_ && (pending_.empty() || now >= *stop_by)) break;

    std::optional<Clock::time_point> wake = pending_.earliest_deadline();
    for (const auto& t : {retry_at_, stop_by}) {
      if (t && (!wake || *t < *wake)) wake = t;
    }
    const auto ready = [this, &stop_by] { return !queue_.empty() || (stopping_ && !stop_by); };
    if (wake) {
      cv_.wait_until(lock, *wake, ready);
    } else {
      cv_.wait(lock, ready);
    }
  }
  accepting_ = false;
  queue_.clear();
  lock.unlock();
  for (const PendingRequest& r : pending_.take_all()) {
    glue_.info("shutting down: no answer yet from " + r.target + " (" + lid_text(r.lid) + ")");
  }
}

void Controller::handle(SubnetUp& s) {
  const auto start = Clock::now();
  const osmsdn_fabric view{s.nodes.data(), static_cast<std::uint32_t>(s.nodes.size()),
                           s.ports.data(), static_cast<std::uint32_t>(s.ports.size()), s.sm_lid};
  AbiFabric f = fabric_from_abi(view);
  std::vector<osmsdn_lft> tables(s.lft_switches.size());
  for (std::size_t i = 0; i < tables.size(); ++i) {
    tables[i] = osmsdn_lft{s.lft_switches[i], s.lft_entries[i].data(),
                           static_cast<std::uint32_t>(s.lft_entries[i].size())};
  }
  const LftSet current = lfts_from_abi(f, tables);

  // What the "sdn" engine would have installed, to tell the operator how far the running
  // tables are from the defaults that flow entries are computed against.
  const SdnTables sdn = compute_sdn_tables(f);
  const std::vector<Lid> lids = assigned_lids(f);
  std::size_t compared = 0;
  std::size_t differ = 0;
  for (const NodeIdx sw : f.fabric.switches()) {
    if (!current.has_table(sw)) continue;
    for (const Lid l : lids) {
      ++compared;
      if (current.table(sw).out(l) != sdn.lfts.table(sw).out(l)) ++differ;
    }
  }
  glue_.info("subnet up, routed by '" + s.engine + "': " + std::to_string(f.fabric.num_nodes()) +
             " nodes (" + std::to_string(f.fabric.switches().size()) + " switches, " +
             std::to_string(f.fabric.hcas().size()) + " CAs), " +
             std::to_string(f.fabric.num_links() / 2) + " cables, SM " + lid_text(f.sm_lid) + "; " +
             sdn.topology + "; LFTs of " + std::to_string(tables.size()) + " switches, " +
             std::to_string(differ) + " of " + std::to_string(compared) +
             " entries differ from the sdn engine's " + sdn.algorithm + " (" + ms_since(start) +
             ")");
  fabric_ = std::move(f);
  ++fabrics_seen_;

  // A new fabric replaces whatever was still to be retried on the old one.
  retry_targets_.clear();
  retry_at_.reset();
  if (!options_.poll_table_info) return;
  std::vector<Target> targets;
  for (const NodeIdx sw : fabric_->fabric.switches()) {
    const Node& node = fabric_->fabric.node(sw);
    const Lid lid = fabric_->lids.lid(sw, PortNum(0));
    if (lid.value() == 0) {
      glue_.verbose("switch " + node.name + " has no LID yet; not asking for its TableInfo");
      continue;
    }
    targets.push_back(Target{node.name, lid});
  }
  start_round(std::move(targets), false);
}

void Controller::start_round(std::vector<Target> targets, bool retry) {
  const std::uint64_t round = ++rounds_started_;
  rounds_[round].retry = retry;
  rounds_[round].fabric = fabrics_seen_;
  for (const Target& t : targets) {
    mad::SdnMad request;
    request.hdr.method = mad::Method::kGet;
    request.hdr.attr_id = mad::AttributeId::kTableInfo;
    request.key = options_.key;
    request.payload = mad::TableInfo{};
    const std::uint32_t tid = pending_.next_tid();
    request.hdr.tid = tid;
    const mad::MadBytes bytes = mad::encode(request);
    pending_.add(PendingRequest{tid, t.lid, t.name, mad::AttributeId::kTableInfo, round,
                                Clock::now() + options_.mad_timeout});
    ++rounds_[round].asked;
    // A failure may also come back through mad_failed (queued); whichever is handled first
    // takes the request, the other finds nothing pending.
    if (const int rc = glue_.send_mad(t.lid, bytes); rc != OSMSDN_OK) {
      if (const auto p = pending_.take(tid)) {
        report_failure(round, "cannot send TableInfo Get to " + t.name + " (" + lid_text(t.lid) +
                                  "): glue error " + std::to_string(rc));
        finish(*p, false);
      }
    }
  }
  Round& r = rounds_[round];
  r.sending = false;
  glue_.verbose(std::string(retry ? "TableInfo retry round " : "TableInfo round ") +
                std::to_string(round) + ": asked " + std::to_string(r.asked) + " switches");
  complete_if_done(round);
}

void Controller::finish(const PendingRequest& req, bool answered) {
  const auto it = rounds_.find(req.round);
  if (it == rounds_.end()) return;
  if (answered) {
    ++it->second.answered;
  } else {
    it->second.unanswered.push_back(Target{req.target, req.lid});
  }
  complete_if_done(req.round);
}

void Controller::complete_if_done(std::uint64_t round) {
  const auto it = rounds_.find(round);
  if (it == rounds_.end()) return;
  Round& r = it->second;
  if (r.sending || r.answered + r.unanswered.size() < r.asked) return;
  const std::string summary = "TableInfo " + std::string(r.retry ? "retry " : "") + "round " +
                              std::to_string(round) + ": " + std::to_string(r.answered) + " of " +
                              std::to_string(r.asked) + " switches answered";
  if (r.retry && r.answered == 0) {
    glue_.verbose(summary);
  } else {
    glue_.info(summary);
  }
  // Only the latest fabric's switches are retried: a round of an older one just ends.
  if (r.fabric == fabrics_seen_ && !r.unanswered.empty() && options_.retry.count() > 0 &&
      !draining_) {
    retry_targets_ = std::move(r.unanswered);
    retry_at_ = Clock::now() + options_.retry;
  }
  rounds_.erase(it);
}

void Controller::report_failure(std::uint64_t round, const std::string& message) const {
  const auto it = rounds_.find(round);
  if (it != rounds_.end() && it->second.retry) {
    glue_.verbose(message);
  } else {
    glue_.error(message);
  }
}

void Controller::handle(const MadIn& m) {
  const std::optional<mad::RawHeader> raw = mad::peek_header(m.bytes);
  const std::uint32_t tid = raw ? mad::tid_low(raw->tid) : 0;

  if (m.kind != MadIn::Kind::kResponse) {
    const auto p = pending_.take(tid);
    if (!p) return;  // already answered, expired or reported by send_mad's return value
    report_failure(
        p->round,
        "no TableInfo answer from " + p->target + " (" + lid_text(p->lid) + "): " +
            (m.kind == MadIn::Kind::kTimeout ? "the fabric reported a timeout (no agent there?)"
                                             : "the send failed"));
    finish(*p, false);
    return;
  }

  if (raw && !raw->response()) {
    glue_.verbose("ignored an unsolicited " + mad::method_name(raw->method) + " from " +
                  lid_text(m.lid));
    return;
  }
  const mad::DecodeResult decoded = mad::decode(m.bytes);
  if (const auto* err = std::get_if<mad::DecodeError>(&decoded)) {
    const auto p = pending_.take(tid);
    const std::string who = p ? p->target + " (" + lid_text(m.lid) + ")" : lid_text(m.lid);
    // A refusal carries no valid payload; its status is the news, not the decode error.
    if (raw && raw->status != 0) {
      glue_.error(who + " refused " + mad::attribute_name(raw->attr_id) + " with status '" +
                  std::string(mad::to_string(static_cast<mad::Status>(raw->status))) + "'");
    } else {
      glue_.error("undecodable answer from " + who + ": " + err->reason + " (byte " +
                  std::to_string(err->offset) + ")");
    }
    if (p) finish(*p, false);
    return;
  }
  const mad::SdnMad& resp = std::get<mad::SdnMad>(decoded);
  const auto p = pending_.take(tid);
  if (!p) {
    glue_.verbose("answer from " + lid_text(m.lid) + " matches no pending request (TID " +
                  hex32(tid) + "): late or duplicate");
    return;
  }
  const std::string who = p->target + " (" + lid_text(m.lid) + ")";
  if (resp.key != options_.key) {
    glue_.error("answer from " + who + " carries another key; ignored");
    finish(*p, false);
    return;
  }
  if (resp.hdr.status != mad::Status::kOk) {
    glue_.error(who + " answered " + mad::attribute_name(static_cast<std::uint16_t>(p->attr)) +
                " with status '" + std::string(mad::to_string(resp.hdr.status)) + "'");
    finish(*p, false);
    return;
  }
  const auto* info = std::get_if<mad::TableInfo>(&resp.payload);
  if (resp.hdr.attr_id != mad::AttributeId::kTableInfo || info == nullptr) {
    glue_.error("answer from " + who + " is not a TableInfo");
    finish(*p, false);
    return;
  }
  glue_.info("TableInfo from " + who + ": " + table_info_text(*info));
  finish(*p, true);
}

void Controller::on_timers(Clock::time_point now) {
  for (const PendingRequest& r : pending_.take_expired(now)) {
    report_failure(r.round, "no TableInfo answer from " + r.target + " (" + lid_text(r.lid) +
                                ") within " + std::to_string(options_.mad_timeout.count()) + " ms");
    finish(r, false);
  }
  if (retry_at_ && *retry_at_ <= now && !draining_) {
    retry_at_.reset();
    start_round(std::move(retry_targets_), true);
    retry_targets_.clear();
  }
}

}  // namespace ibsdn::plugin
