// The controller's runtime inside opensm: computes the "sdn" engine's LFTs on request, and on
// its own thread takes in each SUBNET UP's fabric and LFTs and talks to the switches' agents.
//
// Threads (plugin/README.md has the whole picture):
//  - compute_lfts: OpenSM's sweep thread, with OpenSM's lock held; synchronous, touches no
//    runtime state but the (immutable) options and the log.
//  - fabric_updated / mad_received / mad_failed: any OpenSM thread; they copy their input into
//    the queue and return. The vendor layer's receiver thread is never held up.
//  - the worker: converts, logs, sends MADs, matches responses, expires and retries requests.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "mad/sdn_mad.hpp"
#include "osmsdn_abi.h"
#include "plugin/abi_fabric.hpp"
#include "plugin/glue_services.hpp"
#include "plugin/options.hpp"
#include "plugin/pending_requests.hpp"

namespace ibsdn::plugin {

class Controller {
 public:
  /// Starts the worker thread. Throws std::system_error if it cannot.
  Controller(const osmsdn_glue_ops& ops, Options options);
  ~Controller();
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  /// Lets the worker finish the queue and wait (at most the MAD timeout) for answers still
  /// pending, then joins it. Later events are dropped. Idempotent.
  void stop();

  /// The "sdn" routing engine (osmsdn_compute_lfts). Throws on failure; writes nothing then.
  void compute_lfts(const osmsdn_fabric& fabric, std::span<const osmsdn_lft> tables) const;

  void fabric_updated(const osmsdn_fabric& fabric, std::span<const osmsdn_lft> tables,
                      std::string engine);
  void mad_received(Lid slid, const mad::MadBytes& bytes);
  void mad_failed(Lid dlid, const mad::MadBytes& request, bool timed_out);

  [[nodiscard]] const GlueServices& glue() const { return glue_; }

 private:
  /// The glue's structs, copied as they are; converted on the worker.
  struct SubnetUp {
    std::vector<osmsdn_node> nodes;
    std::vector<osmsdn_port> ports;
    std::uint16_t sm_lid = 0;
    std::vector<std::uint64_t> lft_switches;
    std::vector<std::vector<std::uint8_t>> lft_entries;
    std::string engine;
  };
  struct MadIn {
    enum class Kind : std::uint8_t { kResponse, kTimeout, kSendError };
    Lid lid;  // the sender (response) or the destination (failure)
    mad::MadBytes bytes;
    Kind kind;
  };
  using Event = std::variant<SubnetUp, MadIn>;

  /// A switch to ask.
  struct Target {
    std::string name;
    Lid lid;
  };
  /// One round of TableInfo Gets: all switches after a SUBNET UP, or a retry of those that did
  /// not answer.
  struct Round {
    std::uint64_t fabric = 0;  // which SUBNET UP's fabric it asked
    bool retry = false;
    bool sending = true;  // still asking: not complete even if every request so far finished
    std::size_t asked = 0;
    std::size_t answered = 0;
    std::vector<Target> unanswered;
  };

  void enqueue(Event e);
  void run();
  void handle(SubnetUp& s);
  void handle(const MadIn& m);
  /// Expires requests and starts a due retry round.
  void on_timers(Clock::time_point now);
  void start_round(std::vector<Target> targets, bool retry);
  void finish(const PendingRequest& r, bool answered);
  void complete_if_done(std::uint64_t round);
  /// Errors of a first round are errors; a retry's are expected while agents are missing.
  void report_failure(std::uint64_t round, const std::string& message) const;

  const GlueServices glue_;
  const Options options_;

  // Shared between the worker and the callers; guarded by mu_.
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Event> queue_;
  bool stopping_ = false;
  bool accepting_ = true;
  std::size_t dropped_ = 0;

  // The worker's own.
  bool draining_ = false;            // stop() was called: no new retries
  std::optional<AbiFabric> fabric_;  // the last SUBNET UP's
  std::uint64_t fabrics_seen_ = 0;
  PendingRequests pending_;
  std::uint64_t rounds_started_ = 0;
  std::map<std::uint64_t, Round> rounds_;
  std::vector<Target> retry_targets_;
  std::optional<Clock::time_point> retry_at_;

  std::thread worker_;  // last: started once everything above exists
};

}  // namespace ibsdn::plugin
