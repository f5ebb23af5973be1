#include "mad/umad_transport.hpp"

#include <endian.h>
#include <fcntl.h>
#include <infiniband/umad.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <initializer_list>
#include <vector>

namespace ibsdn::mad {
namespace {

constexpr int kGsiQp = 1;
constexpr int kGsiQkey = static_cast<int>(0x80010000u);

// Subnet management packets (IBA 14.2.1): the classes, where their fields sit.
constexpr std::uint8_t kSmiLidRouted = 0x01;
constexpr std::uint8_t kSmiDirected = 0x81;
constexpr std::uint16_t kAttrSmInfo = 0x0020;
constexpr std::uint16_t kAttrPortInfo = 0x0015;
constexpr std::size_t kSmpData = 64;
constexpr std::size_t kSmpDrSlid = 32;            // DR SMP: DrSLID, DrDLID (2 bytes each)
constexpr std::size_t kPortInfoMasterSmLid = 18;  // IBA 14.2.5.6: PortInfo bytes 18-19
constexpr std::uint16_t kDirectionBit = 0x8000;   // DR SMP: bit 15 of bytes 4-5
constexpr std::uint16_t kStatusUnsupportedAttr = 0x000C;
constexpr std::uint16_t kPermissiveLid = 0xFFFF;
// Class-0x09 MADs kept while a PortInfo query waits for its answer (more are dropped: their
// senders retry).
constexpr std::size_t kMaxPending = 4096;

std::uint16_t be16_at(const std::uint8_t* p) {
  return static_cast<std::uint16_t>(p[0] << 8 | p[1]);
}

void method_bits(std::initializer_list<std::uint8_t> methods, long (&mask)[16 / sizeof(long)]) {
  for (std::uint8_t m : methods) {
    mask[m / (8 * sizeof(long))] |= 1L << (m % (8 * sizeof(long)));
  }
}

[[noreturn]] void fail(const std::string& call, int err) {
  throw TransportError(call + " failed: " + std::strerror(err) + " (errno " + std::to_string(err) +
                       ")");
}

/// libibumad returns -errno from most calls, -1 with errno set from others.
int err_of(int rc) {
  return rc < -1 ? -rc : (errno != 0 ? errno : EIO);
}

/// umad2sim, ibsim's libibumad shim, presents one CA named "ibsim0".
bool is_ibsim_device(const std::string& ca_name) {
  return ca_name.rfind("ibsim", 0) == 0;
}

std::string describe(const UmadOptions& o) {
  return "CA '" + (o.ca.empty() ? std::string("<default>") : o.ca) + "' port " +
         std::to_string(o.port);
}

}  // namespace

UmadTransport::UmadTransport(const UmadOptions& opts) {
  if (umad_init() < 0) fail("umad_init()", errno != 0 ? errno : EIO);

  umad_port_t port{};
  const char* wanted = opts.ca.empty() ? nullptr : opts.ca.c_str();
  if (int rc = umad_get_port(wanted, opts.port, &port); rc < 0) {
    fail("umad_get_port(" + describe(opts) + ")", err_of(rc));
  }
  ca_name_ = port.ca_name;
  port_num_ = port.portnum;
  lid_ = Lid(static_cast<std::uint16_t>(port.base_lid));
  port_guid_ = be64toh(port.port_guid);
  umad_release_port(&port);
  if (is_ibsim_device(ca_name_)) intact_ = kUmad2simIntactBytes;

  fd_ = umad_open_port(ca_name_.c_str(), port_num_);
  if (fd_ < 0) {
    fail("umad_open_port('" + ca_name_ + "', " + std::to_string(port_num_) + ")", err_of(fd_));
  }

  // Bit n of the mask admits unsolicited requests with method n.
  constexpr auto kGet = static_cast<std::uint8_t>(Method::kGet);
  constexpr auto kSet = static_cast<std::uint8_t>(Method::kSet);
  long methods[16 / sizeof(long)] = {};
  if (opts.responder) method_bits({kGet, kSet}, methods);
  agent_ = umad_register(fd_, kMgmtClass, kClassVersion, 0, methods);
  if (agent_ < 0) {
    const int err = err_of(agent_);
    umad_close_port(fd_);
    fail("umad_register(class 0x09, version 1" +
             std::string(opts.responder ? ", methods Get|Set" : "") + ") on '" + ca_name_ + "'",
         err);
  }

  const bool claim = opts.claim_sm_port == SmPortClaim::kYes ||
                     (opts.claim_sm_port == SmPortClaim::kIfSimulated && is_ibsim_device(ca_name_));
  if (claim) {
    char path[256];
    if (int rc = umad_get_issm_path(ca_name_.c_str(), port_num_, path, sizeof path); rc < 0) {
      const int err = err_of(rc);
      umad_close_port(fd_);
      fail("umad_get_issm_path('" + ca_name_ + "')", err);
    }
    long smi_methods[16 / sizeof(long)] = {};
    method_bits({kGet, kSet}, smi_methods);
    int i = 0;
    for (std::uint8_t cls : {kSmiLidRouted, kSmiDirected}) {
      smi_agents_[i] = umad_register(fd_, cls, 1, 0, smi_methods);
      if (smi_agents_[i] < 0) {
        const int err = err_of(smi_agents_[i]);
        umad_close_port(fd_);
        fail("umad_register(SMI class " + std::to_string(cls) + ") on '" + ca_name_ + "'", err);
      }
      ++i;
    }
    issm_fd_ = ::open(path, O_RDWR);
    if (issm_fd_ < 0) {
      const int err = errno;
      umad_close_port(fd_);
      fail(std::string("open(") + path + ")", err);
    }
  }
}

UmadTransport::~UmadTransport() {
  for (int a : smi_agents_) {
    if (a >= 0) umad_unregister(fd_, a);
  }
  if (dr_requester_ >= 0) umad_unregister(fd_, dr_requester_);
  if (agent_ >= 0) umad_unregister(fd_, agent_);
  if (fd_ >= 0) umad_close_port(fd_);
  if (issm_fd_ >= 0) ::close(issm_fd_);
}

void UmadTransport::send(Lid to, std::span<const std::uint8_t> mad,
                         std::chrono::milliseconds response_timeout) {
  if (mad.size() > kMadSize) {
    throw TransportError("umad: MAD of " + std::to_string(mad.size()) + " bytes (max 256)");
  }
  std::vector<std::uint8_t> buf(umad_size() + kMadSize, 0);
  std::copy(mad.begin(), mad.end(), static_cast<std::uint8_t*>(umad_get_mad(buf.data())));
  umad_set_addr(buf.data(), to.value(), kGsiQp, 0, kGsiQkey);
  umad_set_pkey(buf.data(), 0);
  // The kernel retries nothing for us: MadClient owns retries, so a late response to an earlier
  // attempt still matches.
  const int timeout_ms = is_response(mad) ? 0 : static_cast<int>(response_timeout.count());
  if (int rc = umad_send(fd_, agent_, buf.data(), static_cast<int>(kMadSize), timeout_ms, 0);
      rc < 0) {
    fail("umad_send(to LID " + std::to_string(to.value()) + ")", err_of(rc));
  }
}

std::optional<ReceivedMad> UmadTransport::receive(std::chrono::milliseconds timeout) {
  if (!pending_.empty()) {
    ReceivedMad m = pending_.front();
    pending_.pop_front();
    return m;
  }
  auto m = receive_one(timeout);
  if (!m || take_smp(*m)) return std::nullopt;
  return m;
}

std::optional<ReceivedMad> UmadTransport::receive_one(std::chrono::milliseconds timeout) {
  std::vector<std::uint8_t> buf(umad_size() + kMadSize, 0);
  int length = static_cast<int>(kMadSize);
  const int rc = umad_recv(fd_, buf.data(), &length, static_cast<int>(timeout.count()));
  if (rc == -ETIMEDOUT) return std::nullopt;
  // A signal interrupting the wait surfaces as -EIO from poll(); let the caller look at its flags.
  if (rc == -EIO && errno == EINTR) return std::nullopt;
  if (rc < 0) fail("umad_recv()", err_of(rc));
  ReceivedMad m;
  m.length = std::clamp<std::size_t>(static_cast<std::size_t>(std::max(length, 0)), 0, kMadSize);
  const auto* data = static_cast<const std::uint8_t*>(umad_get_mad(buf.data()));
  std::copy_n(data, std::min(m.length, intact_), m.bytes.begin());
  const ib_mad_addr_t* addr = umad_get_mad_addr(buf.data());
  m.from = Lid(be16toh(addr->lid));
  m.status = umad_status(buf.data());
  return m;
}

bool UmadTransport::take_smp(const ReceivedMad& m) {
  if (m.bytes[1] != kSmiLidRouted && m.bytes[1] != kSmiDirected) return false;
  // A response, or our own request handed back undelivered (status ETIMEDOUT).
  if ((m.bytes[3] & 0x80) != 0 || m.status != 0) {
    const auto tid = static_cast<std::uint32_t>(m.bytes[12] << 24 | m.bytes[13] << 16 |
                                                m.bytes[14] << 8 | m.bytes[15]);
    if (smp_waiting_ != 0 && tid == smp_waiting_ && be16_at(&m.bytes[16]) == kAttrPortInfo) {
      // Bit 15 of a directed-route SMP's status is its direction, not part of the status.
      const bool ok = m.status == 0 && (be16_at(&m.bytes[4]) & 0x7FFF) == 0 &&
                      m.length >= kSmpData + kPortInfoMasterSmLid + 2;
      smp_answer_ = ok ? std::optional<Lid>(Lid(be16_at(&m.bytes[kSmpData + kPortInfoMasterSmLid])))
                       : std::nullopt;
    }
    return true;
  }
  if (issm_fd_ >= 0) answer_smp(m.bytes.data(), m.length, m.from);
  return true;
}

int UmadTransport::directed_route_agent() {
  if (smi_agents_[1] >= 0) return smi_agents_[1];  // the claimed SM role registered it already
  if (dr_requester_ < 0) {
    const int id = umad_register(fd_, kSmiDirected, 1, 0, nullptr);
    if (id < 0) fail("umad_register(directed-route SMI class) on '" + ca_name_ + "'", err_of(id));
    dr_requester_ = id;
  }
  return dr_requester_;
}

std::optional<Lid> UmadTransport::query_master_sm_lid(std::chrono::milliseconds timeout) {
  const int agent = directed_route_agent();
  std::vector<std::uint8_t> buf(umad_size() + kMadSize, 0);
  auto* smp = static_cast<std::uint8_t*>(umad_get_mad(buf.data()));
  smp[0] = 1;  // BaseVersion
  smp[1] = kSmiDirected;
  smp[2] = 1;  // ClassVersion
  smp[3] = static_cast<std::uint8_t>(Method::kGet);
  // Status, hop pointer and hop count stay 0: a zero-hop route, answered by this port's own SMA.
  if (++smp_seq_ == 0) ++smp_seq_;
  for (int i = 0; i < 4; ++i) smp[12 + i] = static_cast<std::uint8_t>(smp_seq_ >> (24 - 8 * i));
  smp[16] = kAttrPortInfo >> 8;
  smp[17] = kAttrPortInfo & 0xFF;
  // AttributeModifier 0: the port the SMP arrives on (port 0 of a switch). M_Key 0.
  std::fill_n(smp + kSmpDrSlid, 4, 0xFF);  // DrSLID, DrDLID: the permissive LID
  umad_set_addr(buf.data(), kPermissiveLid, 0, 0, 0);
  smp_answer_.reset();
  if (int rc = umad_send(fd_, agent, buf.data(), static_cast<int>(kMadSize),
                         static_cast<int>(timeout.count()), 0);
      rc < 0) {
    fail("umad_send(PortInfo SMP to the local port)", err_of(rc));
  }
  smp_waiting_ = smp_seq_;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!smp_answer_) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    auto m = receive_one(left);
    if (!m || take_smp(*m)) continue;
    if (pending_.size() < kMaxPending) pending_.push_back(*m);
  }
  smp_waiting_ = 0;  // a late answer finds no query waiting for it and is dropped
  return smp_answer_ ? *smp_answer_ : std::nullopt;
}

void UmadTransport::answer_smp(const std::uint8_t* smp, std::size_t length, Lid from) {
  if (length < kSmpData + 64 || (smp[3] & 0x80) != 0) return;  // short, or a response
  const bool directed = smp[1] == kSmiDirected;
  const auto attr = static_cast<std::uint16_t>(smp[16] << 8 | smp[17]);
  const bool sminfo_get = attr == kAttrSmInfo && smp[3] == static_cast<std::uint8_t>(Method::kGet);

  std::vector<std::uint8_t> buf(umad_size() + kMadSize, 0);
  auto* reply = static_cast<std::uint8_t*>(umad_get_mad(buf.data()));
  // The request as it came (a directed-route one carries the return path ibsim filled in).
  std::copy_n(smp, std::min(length, kMadSize), reply);
  reply[3] = static_cast<std::uint8_t>(Method::kGetResp);
  std::uint16_t status = sminfo_get ? 0 : kStatusUnsupportedAttr;
  if (directed) {
    status |= kDirectionBit;
    reply[6] = 0;  // hop pointer
  }
  reply[4] = static_cast<std::uint8_t>(status >> 8);
  reply[5] = static_cast<std::uint8_t>(status & 0xFF);
  std::fill_n(reply + kSmpData, 64, 0);
  if (sminfo_get) {
    // GUID, SM_Key 0 (OpenSM logs ERR 2F18 "non-matching sm_key" once and ignores this SM,
    // which is the point), ActCount 0, Priority 0, SMState NOTACTIVE (0).
    for (std::size_t i = 0; i < 8; ++i) {
      reply[kSmpData + i] = static_cast<std::uint8_t>(port_guid_ >> (56 - 8 * i));
    }
  }
  const int dlid = directed ? kPermissiveLid : from.value();
  umad_set_addr(buf.data(), dlid, 0, 0, 0);
  const int agent = smi_agents_[directed ? 1 : 0];
  if (umad_send(fd_, agent, buf.data(), static_cast<int>(kMadSize), 0, 0) == 0) ++smps_answered_;
}

}  // namespace ibsdn::mad
