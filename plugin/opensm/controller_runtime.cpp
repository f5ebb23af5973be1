#include "plugin/opensm/controller_runtime.hpp"

#include <chrono>
#include <exception>
#include <filesystem>
#include <utility>

#include "plugin/controller/log_codes.hpp"
#include "plugin/controller/switch_key.hpp"
#include "plugin/opensm/sdn_engine.hpp"

namespace ibsdn::plugin {
namespace {

using Clock = std::chrono::steady_clock;

// Queued events beyond this are dropped (and counted, and a notice answered busy): a flood of
// notices or sweeps must not exhaust memory.
constexpr std::size_t kMaxQueuedEvents = 4096;

// Queries that read the switches (audit, flows --from-switch) a user other than root and the
// Slurm user may have waiting at once; more are answered busy. Each costs a MAD round trip per
// switch on the controller thread: a loop of them must not fill the queue.
constexpr std::size_t kMaxQueuedReadsPerUser = 2;

// How often the controller thread asks for OpenSM's SM state when nothing else wakes it: a
// master that became standby stops acting on the switches within this time.
constexpr auto kSmStatePoll = std::chrono::seconds(1);

std::string ms_since(Clock::time_point start) {
  const auto us =
      std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count();
  return std::to_string(us / 1000) + "." + std::to_string((us % 1000) / 100) + " ms";
}

/// Every LID assigned in `f`: switches' and HCA ports'.
std::vector<Lid> assigned_lids(const Subnet& f) {
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

Config load(const Options& o, std::vector<std::string>& notes) {
  if (o.config) return load_config(*o.config);
  if (std::filesystem::exists(kDefaultConfigPath)) return load_config(kDefaultConfigPath);
  notes.push_back(std::string("no ") + kDefaultConfigPath +
                  ": every setting has its default (event_plugin_options config=PATH names "
                  "another file)");
  return Config{};
}

}  // namespace

Controller::Controller(const osmsdn_glue_ops& ops, Options options)
    : glue_(ops), options_(std::move(options)), transport_(glue_), lft_access_(glue_, kept_lft_) {
  std::vector<std::string> notes;
  config_ = load(options_, notes);
  expand_path_templates(config_, glue_.sm_port_guid());
  for (const std::string& w : config_.warnings) notes.push_back(w);
  for (const std::string& n : notes) glue_.warning(n);

  std::optional<HostMap> hosts;
  if (config_.host_map) hosts = HostMap::load(*config_.host_map);
  store_ = StateStore::open(config_.state_dir);
  std::vector<std::string> state_notes = store_->warnings();
  config_.switch_key = resolve_switch_key(config_, state_notes);  // the store holds the dir's lock
  for (const std::string& n : state_notes) glue_.warning(n);
  const std::optional<std::uint32_t> slurm_uid = uid_of_user(config_.slurm_user);
  if (slurm_uid) scheduler_uid_ = static_cast<uid_t>(*slurm_uid);
  if (!slurm_uid) {
    glue_.warning("slurm_user '" + config_.slurm_user +
                  "' does not exist: only root may start and end jobs");
  }
  jobs_ = std::make_unique<JobController>(
      config_, std::move(hosts), &*store_, transport_,
      [this](LogLevel l, const std::string& m) { log(l, m); }, slurm_uid, &lft_access_);
  jobs_->reload_before_first_sweep();

  worker_ = std::thread([this] { run(); });
  try {
    NoticeServer::Settings s;
    s.path = config_.notice_socket;
    s.group = config_.socket_group;
    s.max_connections = config_.notice.max_connections;
    s.max_connections_per_uid = config_.notice.max_connections_per_uid;
    s.reserved_for_scheduler = config_.notice.reserved_for_scheduler;
    if (slurm_uid) s.scheduler_uid = static_cast<uid_t>(*slurm_uid);
    s.idle_timeout = std::chrono::milliseconds(config_.notice.idle_timeout_ms);
    s.scheduler_idle_timeout = std::chrono::milliseconds(config_.notice.scheduler_idle_timeout_ms);
    server_ = std::make_unique<NoticeServer>(
        s,
        [this](Request r, PeerCredentials peer, NoticeServer::Reply reply) {
          // Queries are answered here, from the last published state, even while the
          // controller thread routes a job or waits on a switch. Before the first SUBNET UP
          // they wait in the queue behind it, as every notice does.
          const std::shared_ptr<const ControllerView> view = jobs_->view();
          if (view->fabric) {
            if (const auto answer = answer_from_view(*view, r)) {
              reply(to_line(*answer));
              return;
            }
          }
          enqueue(Notice{std::move(r), peer, std::move(reply)});
        },
        [this](LogLevel l, const std::string& m) { log(l, in_context("notice socket: ", m)); });
  } catch (...) {
    stop();
    throw;
  }
  glue_.info("controller ready: notice socket " + config_.notice_socket + ", state " +
             store_->path() + ", table capacity " + std::to_string(config_.table_capacity) +
             ", algorithms " + config_.algorithms.fat_tree + " (fat-tree) / " +
             config_.algorithms.other + " (other)");
}

Controller::~Controller() {
  stop();
}

void Controller::log(LogLevel level, const std::string& message) const {
  if (level > config_.log_level) return;
  switch (level) {
    case LogLevel::kError:  // the controller's errors carry their code already
      glue_.log(OSMSDN_LOG_ERROR, message);
      break;
    case LogLevel::kWarn:
      glue_.warning(message);
      break;
    case LogLevel::kInfo:
      glue_.info(message);
      break;
    case LogLevel::kDebug:
      glue_.debug(message);
      break;
  }
}

void Controller::stop() {
  // The server first: no new notices. Its stop() joins its thread, which may be in enqueue().
  if (server_) server_->stop();
  std::unique_lock lock(mu_);
  stopping_ = true;
  cv_.notify_all();
  // The queued work (a SUBNET UP's audit, with `opensm --once` the only one) may finish within
  // the time a job start may take; then MAD exchanges are cut short.
  const bool finished = cv_.wait_for(lock, std::chrono::milliseconds(config_.job_start_timeout_ms),
                                     [this] { return worker_done_; });
  lock.unlock();
  if (!finished) {
    glue_.warning("stopping before the controller's work is done");
    // Routing stops at its next deadline check, MAD exchanges when the transport closes.
    jobs_->cancel();
  }
  transport_.close();
  if (worker_.joinable()) worker_.join();
}

void Controller::compute_lfts(const osmsdn_fabric& fabric,
                              std::span<const osmsdn_lft> tables) const {
  const auto start = Clock::now();
  Subnet f = subnet_from_abi(fabric);
  SdnTables t = compute_sdn_tables(f);
  // The running jobs' LFT entries (the LFT backend) stay: a heavy sweep keeps them.
  const std::size_t kept = kept_lft_.apply(f, t.lfts);
  write_tables(f, t.lfts, tables);
  glue_.info("sdn engine: " + t.algorithm + " on " + t.topology + "; " +
             std::to_string(tables.size()) + " switch tables, " +
             std::to_string(t.lfts.lids.max_lid().value()) + " LIDs" +
             (kept > 0 ? ", " + std::to_string(kept) + " jobs' LFT entries kept" : "") + ", in " +
             ms_since(start));
  if (const std::size_t dropped = kept_lft_.dropped(); dropped > 0) {
    glue_.warning("sdn engine: " + std::to_string(dropped) +
                  " jobs' LFT entries left out: on this fabric their destinations would not be "
                  "delivered through them (the controller re-routes the jobs at SUBNET UP)");
  }
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

void Controller::sm_state_changed(int state) {
  if (state == OSMSDN_SM_STANDBY || state == OSMSDN_SM_NOTACTIVE) {
    other_master_seen_.store(true);
  }
  std::lock_guard lock(mu_);
  cv_.notify_all();
}

void Controller::sync_sm_state() {
  const int state = glue_.sm_state();
  bool other = other_master_seen_.exchange(false);
  other = other || state == OSMSDN_SM_STANDBY || state == OSMSDN_SM_NOTACTIVE;
  jobs_->set_sm_state(state == OSMSDN_SM_MASTER, other, GlueServices::sm_state_name(state));
}

void Controller::mad_received(Lid slid, const mad::MadBytes& bytes) {
  transport_.deliver(slid, bytes);
}

void Controller::mad_failed(Lid dlid, const mad::MadBytes& request, bool timed_out) {
  transport_.failed(dlid, request, timed_out);
}

Lane lane_of(const Request& request, uid_t uid, std::optional<uid_t> scheduler_uid) {
  const bool scheduler = uid == 0 || (scheduler_uid && uid == *scheduler_uid);
  const bool job_notice = std::holds_alternative<JobStartRequest>(request) ||
                          std::holds_alternative<JobEndRequest>(request) ||
                          std::holds_alternative<PhaseRequest>(request) ||
                          std::holds_alternative<HintRequest>(request);
  if (scheduler) return job_notice ? Lane::kUrgent : Lane::kNormal;
  return job_notice ? Lane::kNormal : Lane::kUserRead;
}

Lane Controller::lane_of(const Event& e) const {
  const auto* n = std::get_if<Notice>(&e);
  if (n == nullptr) return Lane::kUrgent;  // a SUBNET UP
  return plugin::lane_of(n->request, n->peer.uid, scheduler_uid_);
}

void Controller::enqueue(Event e) {
  std::string refused = "the controller's queue is full; retry";
  {
    std::lock_guard lock(mu_);
    const Lane lane = lane_of(e);
    const uid_t uid = lane == Lane::kUserRead ? std::get<Notice>(e).peer.uid : 0;
    const bool reads_full = lane == Lane::kUserRead && queued_reads_[uid] >= kMaxQueuedReadsPerUser;
    if (accepting_ && !reads_full && urgent_.size() + queue_.size() < kMaxQueuedEvents) {
      if (lane == Lane::kUserRead) ++queued_reads_[uid];
      (lane == Lane::kUrgent ? urgent_ : queue_).push_back(std::move(e));
      cv_.notify_all();  // stop() may wait on cv_ too
      return;
    }
    if (reads_full) {
      refused = "uid " + std::to_string(uid) + " has " + std::to_string(kMaxQueuedReadsPerUser) +
                " queries that read the switches waiting already; retry when they are answered";
    } else {
      ++dropped_;
    }
  }
  if (auto* n = std::get_if<Notice>(&e)) {
    n->reply(to_line(error_response(ErrorCode::kBusy, refused)));
  }
}

void Controller::run() {
  const auto interval = std::chrono::milliseconds(config_.audit_interval_ms);
  auto next_check = Clock::now() + interval;
  auto next_state_poll = Clock::now();
  std::unique_lock lock(mu_);
  std::size_t dropped_reported = 0;
  for (;;) {
    if (stopping_ && urgent_.empty() && queue_.empty()) break;
    if (!urgent_.empty() || !queue_.empty()) {
      // Slurm's job notices and SUBNET UPs first: a user's queries wait behind them, never the
      // other way round.
      std::deque<Event>& from = urgent_.empty() ? queue_ : urgent_;
      Event e = std::move(from.front());
      from.pop_front();
      if (lane_of(e) == Lane::kUserRead) {
        const uid_t uid = std::get<Notice>(e).peer.uid;
        if (--queued_reads_[uid] == 0) queued_reads_.erase(uid);
      }
      if (stopping_) {
        if (auto* n = std::get_if<Notice>(&e)) {
          lock.unlock();
          n->reply(to_line(error_response(ErrorCode::kBusy, "the controller is shutting down")));
          lock.lock();
          continue;
        }
      }
      const std::size_t dropped = dropped_;
      lock.unlock();
      if (dropped != dropped_reported) {
        glue_.error(LogCode::kEventsDropped,
                    std::to_string(dropped - dropped_reported) +
                        " events dropped: the controller's queue was full");
        dropped_reported = dropped;
      }
      // Nothing may escape the controller thread: an exception here would terminate opensm.
      try {
        sync_sm_state();
        std::visit([this](auto& ev) { handle(ev); }, e);
      } catch (const std::exception& ex) {
        glue_.error(LogCode::kEventFailed, std::string("controller: ") + ex.what());
      } catch (...) {
        glue_.error(LogCode::kEventFailed, "controller: unknown exception");
      }
      lock.lock();
      continue;
    }
    if (Clock::now() >= next_state_poll && !stopping_) {
      lock.unlock();
      try {
        sync_sm_state();
      } catch (const std::exception& ex) {
        glue_.error(LogCode::kSmStateFailed, std::string("controller: SM state: ") + ex.what());
      }
      next_state_poll = Clock::now() + kSmStatePoll;
      lock.lock();
      continue;
    }
    if (interval.count() > 0 && Clock::now() >= next_check && !stopping_) {
      lock.unlock();
      try {
        jobs_->periodic_check();
      } catch (const std::exception& ex) {
        glue_.error(LogCode::kPeriodicCheckFailed,
                    std::string("controller: periodic check: ") + ex.what());
      } catch (...) {
        glue_.error(LogCode::kPeriodicCheckFailed, "controller: periodic check: unknown exception");
      }
      next_check = Clock::now() + interval;
      lock.lock();
      continue;
    }
    const auto ready = [this] {
      return !urgent_.empty() || !queue_.empty() || stopping_ || other_master_seen_.load();
    };
    const auto wake =
        interval.count() > 0 ? std::min(next_check, next_state_poll) : next_state_poll;
    if (cv_.wait_until(lock, wake, ready) && other_master_seen_.load()) {
      next_state_poll = Clock::now();
    }
  }
  accepting_ = false;
  worker_done_ = true;
  cv_.notify_all();
}

void Controller::handle(Notice& n) {
  const Caller caller{static_cast<std::uint32_t>(n.peer.uid),
                      static_cast<std::uint32_t>(n.peer.gid),
                      static_cast<std::int32_t>(n.peer.pid)};
  n.reply(to_line(jobs_->handle(n.request, caller)));
}

void Controller::handle(SubnetUp& s) {
  const auto start = Clock::now();
  const osmsdn_fabric view{s.nodes.data(), static_cast<std::uint32_t>(s.nodes.size()),
                           s.ports.data(), static_cast<std::uint32_t>(s.ports.size()), s.sm_lid};
  Subnet f = subnet_from_abi(view);
  std::vector<osmsdn_lft> tables(s.lft_switches.size());
  for (std::size_t i = 0; i < tables.size(); ++i) {
    tables[i] = osmsdn_lft{s.lft_switches[i], s.lft_entries[i].data(),
                           static_cast<std::uint32_t>(s.lft_entries[i].size())};
  }
  LftSet current = lfts_from_abi(f, tables);
  // The controller routes against the default routes: the jobs' LFT entries the engine wrote
  // over them are its own, known from its jobs.
  if (s.engine == "sdn") kept_lft_.restore_defaults(f, current);

  // What the "sdn" engine would have installed, to tell the operator how far the running
  // tables are from the defaults. When "sdn" routed them they are its own: recognising the
  // topology is enough (computing the tables again costs ~0.1 s per 512 hosts).
  std::string topology;
  std::string comparison;
  if (s.engine == "sdn") {
    topology = recognize_topology(f.fabric);
    comparison = "the sdn engine's own";
  } else {
    const SdnTables sdn = compute_sdn_tables(f);
    topology = sdn.topology;
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
    comparison = std::to_string(differ) + " of " + std::to_string(compared) +
                 " entries differ from the sdn engine's " + sdn.algorithm;
  }
  glue_.info("subnet up, routed by '" + s.engine + "': " + std::to_string(f.fabric.num_nodes()) +
             " nodes (" + std::to_string(f.fabric.switches().size()) + " switches, " +
             std::to_string(f.fabric.hcas().size()) + " CAs), " +
             std::to_string(f.fabric.num_links() / 2) + " cables, SM LID " +
             std::to_string(f.sm_lid.value()) + "; " + topology + "; LFTs of " +
             std::to_string(tables.size()) + " switches, " + comparison + " (" + ms_since(start) +
             ")");
  jobs_->fabric_updated(FabricSnapshot{std::move(f), std::move(current), s.engine});
}

}  // namespace ibsdn::plugin
