// The controller side of the SDN MAD class: requests with transaction ids, a timeout and retries
// per request, responses matched by transaction id and source LID (anything else is a stray and
// is ignored), and a windowed pipeline for sending many FlowMods to many switches at once.
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "flowtable/flow_entry.hpp"
#include "mad/sdn_mad.hpp"
#include "mad/transport.hpp"

namespace ibsdn::mad {

struct ClientOptions {
  std::chrono::milliseconds timeout{250};  // per attempt
  int retries = 3;                         // attempts after the first one
  std::size_t window = 32;                 // requests in flight at once in pipelined calls
  int read_restarts = 4;  // read_table() starts over at most this often when the table changes
  /// 0: transaction ids start at a random value. Otherwise ids are tid_base | a 24-bit counter,
  /// so that they stay apart from other agents' sharing one match table on the low 32 bits of
  /// the TID (OpenSM's vendor layer inside the plugin).
  std::uint32_t tid_base = 0;
};

enum class ClientErrorKind {
  kStatus,          // the switch answered with a non-OK Status
  kTimeout,         // no answer after every attempt (or the fabric could not deliver the request)
  kBadResponse,     // an answer that does not decode
  kTransport,       // the transport itself failed
  kUnstable,        // read_table(): the table kept changing under the read
  kInvalidRequest,  // the request cannot be encoded (the codec refused it)
};

struct ClientError {
  ClientErrorKind kind = ClientErrorKind::kTimeout;
  Status status = Status::kOk;  // kStatus: what the switch answered
  std::string message;          // names the switch, the attribute and the reason
};

/// A value or the reason there is none.
template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}            // NOLINT: implicit by design
  Result(ClientError error) : v_(std::move(error)) {}  // NOLINT
  [[nodiscard]] bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  [[nodiscard]] const T& value() const { return std::get<0>(v_); }
  [[nodiscard]] T& value() { return std::get<0>(v_); }
  [[nodiscard]] const ClientError& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, ClientError> v_;
};

/// A whole flow table, read page by page at one generation.
struct TableRead {
  std::vector<FlowEntry> entries;  // in the switch's installation order
  std::uint64_t generation = 0;
  int restarts = 0;  // how often the read started over because the table changed
};

/// Whatever came back to a raw request, OK or not.
struct RawReply {
  MadBytes bytes{};
  std::size_t length = 0;
  Status status = Status::kOk;  // the MAD Status field, as received
};

struct FlowModJob {
  Lid lid{};
  std::uint64_t key = 0;
  FlowMod mod;
};

struct ClientStats {
  std::uint64_t sent = 0;         // MADs sent, retransmissions included
  std::uint64_t retransmits = 0;  // of which retries
  std::uint64_t strays = 0;       // MADs received that matched no outstanding request
};

class MadClient {
 public:
  explicit MadClient(MadTransport& transport, ClientOptions opts = {});

  /// Set FlowMod; the switch's echo (with `affected`) or the Status it refused with.
  Result<FlowMod> flow_mod(Lid lid, std::uint64_t key, const FlowMod& mod);
  Result<Barrier> barrier(Lid lid, std::uint64_t key);
  Result<TableInfo> table_info(Lid lid, std::uint64_t key);
  /// Every entry: page 0 gives the total and generation, the other pages are then requested
  /// through the window; a page of another generation restarts the read (ClientOptions).
  Result<TableRead> read_table(Lid lid, std::uint64_t key);
  /// Sends `bytes` unchanged (zero-padded to 256) and returns the answer whatever its Status.
  /// The answer is matched by the low 32 bits of the TID in `bytes` (bytes 12-15).
  Result<RawReply> raw(Lid lid, std::span<const std::uint8_t> bytes);

  /// Sends every job with at most ClientOptions::window in flight; results in job order. Jobs to
  /// the same switch are sent in order, but a retried one may be applied after a later one:
  /// order-dependent sequences need a barrier() in between.
  std::vector<Result<FlowMod>> flow_mods(std::span<const FlowModJob> jobs);
  /// Barrier / TableInfo to many switches at once through the window; results in `lids` order.
  std::vector<Result<Barrier>> barriers(std::span<const Lid> lids, std::uint64_t key);
  std::vector<Result<TableInfo>> table_infos(std::span<const Lid> lids, std::uint64_t key);

  [[nodiscard]] const ClientStats& stats() const { return stats_; }
  [[nodiscard]] const ClientOptions& options() const { return opts_; }

 private:
  struct Request {
    Lid to{};
    MadBytes bytes{};  // with its TID: the codec ties a FlowMod's xid to it
  };
  /// Sends `reqs` through the window with timeouts and retries; for each, the reply's bytes or
  /// why there is none. Replies with a non-OK Status are returned as replies.
  std::vector<Result<ReceivedMad>> exchange(std::vector<Request>& reqs);
  std::vector<Result<SdnMad>> transact(std::vector<Request>& reqs);
  /// A new transaction, encoded. Throws std::invalid_argument when the codec refuses it.
  Request request(Lid lid, std::uint64_t key, Method method, AttributeId attr,
                  std::uint32_t attr_mod, Payload payload);
  Result<SdnMad> single(Lid lid, std::uint64_t key, Method method, AttributeId attr,
                        std::uint32_t attr_mod, Payload payload);
  /// One payload-less Get of `attr` to each of `lids`, pipelined; T is the reply's payload.
  template <typename T>
  std::vector<Result<T>> gets(std::span<const Lid> lids, std::uint64_t key, AttributeId attr,
                              Payload payload, const char* attr_name);
  std::uint32_t take_tid();

  MadTransport& transport_;
  ClientOptions opts_;
  std::uint32_t next_tid_;
  ClientStats stats_;
};

}  // namespace ibsdn::mad
