// The controller's runtime inside opensm: computes the "sdn" engine's LFTs on request, and runs
// the controller thread that owns the job logic (job_controller.hpp), fed by two sources: each
// SUBNET UP's fabric and LFTs, and the notices the socket server (notice_server.hpp) receives.
//
// Threads (plugin/opensm/README.md has the whole picture):
//  - compute_lfts: OpenSM's sweep thread, with OpenSM's lock held; synchronous, touches no
//    runtime state but the (immutable) configuration and the log.
//  - fabric_updated: a sweep thread; copies its input into the queue and returns.
//  - mad_received / mad_failed: the vendor layer's receiver thread; hands the MAD to the
//    transport's inbox (never blocks).
//  - the notice server's thread: queues each request with its reply callback.
//  - the controller thread: everything else, one event at a time, plus the periodic audit.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "mad/sdn_mad.hpp"
#include "osmsdn_abi.h"
#include "plugin/controller/config.hpp"
#include "plugin/controller/job_controller.hpp"
#include "plugin/controller/notice_server.hpp"
#include "plugin/controller/state_store.hpp"
#include "plugin/opensm/abi_fabric.hpp"
#include "plugin/opensm/glue_lft.hpp"
#include "plugin/opensm/glue_services.hpp"
#include "plugin/opensm/glue_transport.hpp"
#include "plugin/opensm/options.hpp"

namespace ibsdn::plugin {

/// Which queue a controller event waits in: SUBNET UPs and the scheduler's (root's, the Slurm
/// user's) job notices before everything else; other users' notices next, in order; their queries
/// that read the switches (audit, flows --from-switch) are also limited per uid.
enum class Lane : std::uint8_t { kUrgent, kNormal, kUserRead };

/// The lane of a notice that the view could not answer, sent by `uid`.
Lane lane_of(const Request& request, uid_t uid, std::optional<uid_t> scheduler_uid);

class Controller {
 public:
  /// Reads the configuration, opens the state store and the notice socket, starts the
  /// controller thread. Throws (ConfigError, StateError, std::runtime_error) with a message
  /// that says what is wrong; the plugin then does not load and OpenSM runs without it.
  Controller(const osmsdn_glue_ops& ops, Options options);
  ~Controller();
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  /// Closes the socket, lets the controller thread finish the queued work (SUBNET UPs; queued
  /// notices are answered busy) for at most job_start_timeout_ms, then ends any MAD exchange
  /// still going and joins the thread. Later events are dropped. Idempotent.
  void stop();

  /// The "sdn" routing engine (osmsdn_compute_lfts). Throws on failure; writes nothing then.
  void compute_lfts(const osmsdn_fabric& fabric, std::span<const osmsdn_lft> tables) const;

  void fabric_updated(const osmsdn_fabric& fabric, std::span<const osmsdn_lft> tables,
                      std::string engine);
  /// OpenSM's STATE_CHANGE event: remembers a STANDBY or NOT ACTIVE state (another SM is
  /// master) for the controller thread, which applies the state before its next step.
  void sm_state_changed(int state);
  void mad_received(Lid slid, const mad::MadBytes& bytes);
  void mad_failed(Lid dlid, const mad::MadBytes& request, bool timed_out);

  [[nodiscard]] const GlueServices& glue() const { return glue_; }
  [[nodiscard]] const Config& config() const { return config_; }

 private:
  /// The glue's structs, copied as they are; converted on the controller thread.
  struct SubnetUp {
    std::vector<osmsdn_node> nodes;
    std::vector<osmsdn_port> ports;
    std::uint16_t sm_lid = 0;
    std::vector<std::uint64_t> lft_switches;
    std::vector<std::vector<std::uint8_t>> lft_entries;
    std::string engine;
  };
  struct Notice {
    Request request;
    PeerCredentials peer;
    NoticeServer::Reply reply;
  };
  using Event = std::variant<SubnetUp, Notice>;
  [[nodiscard]] Lane lane_of(const Event& e) const;

  void enqueue(Event e);
  void run();
  void handle(SubnetUp& s);
  void handle(Notice& n);
  void log(LogLevel level, const std::string& message) const;
  /// Tells the job controller OpenSM's SM state (controller thread).
  void sync_sm_state();

  const GlueServices glue_;
  const Options options_;
  Config config_;
  GlueTransport transport_;
  /// The jobs' LFT entries the engine keeps (compute_lfts on the sweep thread, the controller
  /// thread's keep()), and the LFT backend over the glue.
  mutable KeptLftOverrides kept_lft_;
  GlueLftAccess lft_access_;
  std::optional<StateStore> store_;
  std::unique_ptr<JobController> jobs_;

  // Shared between the controller thread and the callers; guarded by mu_.
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Event> urgent_;
  std::deque<Event> queue_;
  std::map<uid_t, std::size_t> queued_reads_;  // Lane::kUserRead events queued, by uid
  bool stopping_ = false;
  bool accepting_ = true;
  bool worker_done_ = false;
  std::size_t dropped_ = 0;
  /// Set by sm_state_changed() when OpenSM was STANDBY or NOT ACTIVE; read by sync_sm_state().
  std::atomic<bool> other_master_seen_{false};
  std::optional<uid_t> scheduler_uid_;  // the Slurm user's uid besides root, if it exists

  std::thread worker_;
  std::unique_ptr<NoticeServer> server_;  // last: it queues into everything above
};

}  // namespace ibsdn::plugin
