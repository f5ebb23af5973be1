#include "sim_backend/timing/timing_sim.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <queue>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "routing/patterns/mapping.hpp"
#include "sim_backend/timing/background_traffic.hpp"
#include "sim_backend/timing/timing_job_plan.hpp"
#include "sim_backend/timing/timing_links.hpp"

namespace ibsdn {

namespace {

class TimingRun {
 public:
  TimingRun(const Fabric& fabric, std::span<const TimingJob> jobs, RouteSource& routes,
            const TimingOptions& options)
      : fabric_(fabric),
        routes_(routes),
        options_(options),
        network_links_(fabric.num_links()),
        link_flows_(fabric) {
    std::vector<std::uint64_t> ids;
    for (const TimingJob& job : jobs) {
      check_timing_job(fabric, job);
      ids.push_back(job.id);
    }
    std::sort(ids.begin(), ids.end());
    if (const auto twice = std::adjacent_find(ids.begin(), ids.end()); twice != ids.end()) {
      throw std::invalid_argument("timing: job id " + std::to_string(*twice) + " given twice");
    }
    if (!(options.gpu_link_factor > 0) || !std::isfinite(options.gpu_link_factor)) {
      throw std::invalid_argument("timing: GPU link factor not positive and finite");
    }
    if (!(options.sample_interval >= 0) || !std::isfinite(options.sample_interval)) {
      throw std::invalid_argument("timing: sample interval not finite and >= 0");
    }
    jobs_.resize(jobs.size());
    for (std::size_t j = 0; j < jobs.size(); ++j) plan(j, jobs[j]);
    engine_ = std::make_unique<FlowEngine>(links_.make(fabric, options), options.flow);
    nic_.resize(fabric.num_nodes());
    busy_.assign(fabric.num_nodes(), kNone);
  }

  TimingResult run() {
    for (std::uint32_t j = 0; j < jobs_.size(); ++j)
      push({jobs_[j].job->start, Ext::kJobStart, j, 0});
    if (options_.sample_interval > 0) {
      result_.sample_interval = options_.sample_interval;
      sampler_.start(network_links_);
      push({options_.sample_interval, Ext::kSample, 0, 1});
    }
    std::vector<std::uint64_t> done;
    while (!external_.empty() || engine_->next_event_time() != FlowEngine::kNever) {
      // Background traffic lasts as long as the other jobs (BackgroundTraffic).
      if (jobs_left_ == 0 && (only_samples_left() || has_background_)) break;
      const double t_ext = external_.empty() ? FlowEngine::kNever : external_.top().time;
      done.clear();
      const double now = engine_->advance(std::min(t_ext, engine_->next_event_time()), done);
      for (const std::uint64_t id : done) delivered(static_cast<std::uint32_t>(id));
      while (!external_.empty() && external_.top().time <= now) {
        const Ext e = external_.top();
        external_.pop();
        handle(e);
      }
    }
    if (options_.sample_interval > 0) {
      sampler_.record(*engine_, options_.max_samples, result_.samples);  // the last, partial one
    }
    for (std::uint32_t j = 0; j < jobs_.size(); ++j) {
      if (jobs_[j].background) finish_background(j);
    }
    for (const JobState& js : jobs_) {
      if (!js.done) {
        throw std::logic_error("timing: job " + std::to_string(js.job->id) + " never finished");
      }
      result_.jobs.push_back(js.out);
      result_.makespan = std::max(result_.makespan, js.out.end);
    }
    result_.stats = engine_->stats();
    result_.link_bytes.resize(network_links_);
    for (std::size_t l = 0; l < network_links_; ++l) {
      result_.link_bytes[l] = engine_->link_bytes(LinkId{static_cast<std::uint32_t>(l)});
    }
    return std::move(result_);
  }

 private:
  static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

  struct RankState {
    std::uint32_t phase = 0;
    std::uint32_t iteration = 0;
    std::uint64_t g = 0;  // iterations done over all phases
    std::uint32_t sends_left = 0;
    std::deque<std::uint32_t> received{0};  // [k]: arrivals for iteration g + k
    bool computing = false;
    bool posted = false;
    bool finished = false;
    bool at_barrier = false;
    double compute_end = 0;
    double compute_total = 0;
    double waited = 0;
  };
  struct JobState {
    const TimingJob* job = nullptr;
    std::optional<BackgroundSender> background;
    std::vector<NodeIdx> rank_node;
    std::vector<std::uint32_t> rank_slot;  // the rank's GPU on its node
    std::vector<PhasePlan> phases;
    std::vector<RankState> ranks;
    std::uint32_t ranks_left = 0;
    std::uint32_t at_barrier = 0;  // ranks waiting at the barrier of their next phase
    bool started = false;
    bool waiting = false;
    bool done = false;
    TimedJob out;
  };
  struct Message {
    std::uint32_t job = 0;
    std::uint32_t src = 0;  // ranks
    std::uint32_t dst = 0;
    std::uint64_t g = 0;
    double bytes = 0;
    double posted = 0;
    double admitted = 0;
    std::uint8_t traffic_class = 0;
    bool network = false;
    bool in_engine = false;  // admitted by its NIC (or on a GPU link), not yet delivered
    std::vector<std::vector<LinkId>> routes;  // a network message's, while in the engine
  };
  struct Ext {
    enum Kind : std::uint8_t { kJobStart, kComputeEnd, kResume, kSample, kInject };
    double time;
    Kind kind;
    std::uint32_t job;
    std::uint32_t rank;  // kSample: the interval's end index; kInject: the node's index
    std::uint64_t seq = 0;
  };
  struct ExtLater {
    bool operator()(const Ext& a, const Ext& b) const {
      return a.time != b.time ? a.time > b.time : a.seq > b.seq;
    }
  };
  /// One queue per traffic class, in the order the classes first came.
  struct NicQueue {
    std::uint8_t traffic_class = 0;
    std::deque<std::uint32_t> queue;
    std::size_t active = 0;
  };
  struct Nic {
    std::vector<NicQueue> queues;
    NicQueue& of(std::uint8_t c) {
      for (NicQueue& q : queues) {
        if (q.traffic_class == c) return q;
      }
      queues.push_back({c, {}, 0});
      return queues.back();
    }
  };

  void push(Ext e) {
    e.seq = ext_seq_++;
    external_.push(e);
  }

  bool only_samples_left() const {
    return external_.empty() || (external_.size() == 1 && external_.top().kind == Ext::kSample);
  }

  void plan(std::size_t j, const TimingJob& job) {
    JobState& js = jobs_[j];
    js.job = &job;
    js.out.id = job.id;
    if (job.background) {
      // One sender per node; its messages are never between GPUs of one node.
      js.rank_node = job.nodes;
      js.out.ranks = static_cast<std::uint32_t>(job.nodes.size());
      std::vector<double> bandwidth;
      for (const NodeIdx n : job.nodes) {
        bandwidth.push_back(host_bandwidth(fabric_, n) * kBytesPerGbps);
      }
      js.background.emplace(*job.background, std::move(bandwidth));
      has_background_ = true;
      return;
    }
    const std::uint32_t ranks = job.rank_count();
    js.rank_node = map_ranks(job.nodes, job.ranks_per_node, job.mapping, ranks);
    js.rank_slot.resize(ranks);
    std::unordered_map<std::uint32_t, std::uint32_t> used;
    for (std::uint32_t r = 0; r < ranks; ++r) js.rank_slot[r] = used[js.rank_node[r].value()]++;
    for (const NodeIdx n : job.nodes) links_.use_gpus(n, job.ranks_per_node);
    for (const TimingPhase& p : job.phases) js.phases.push_back(plan_phase(job, p, ranks));
    js.ranks.resize(ranks);
    js.ranks_left = ranks;
    js.out.ranks = ranks;
    ++jobs_left_;
  }

  void handle(const Ext& e) {
    switch (e.kind) {
      case Ext::kJobStart:
        arrive(e.job);
        break;
      case Ext::kComputeEnd: {
        RankState& rs = jobs_[e.job].ranks[e.rank];
        rs.computing = false;
        post(e.job, e.rank);
        progress(e.job, e.rank);
        break;
      }
      case Ext::kResume:
        jobs_[e.job].ranks[e.rank].at_barrier = false;
        progress(e.job, e.rank);
        break;
      case Ext::kSample:
        sample(e.rank);
        break;
      case Ext::kInject:
        inject(e.job, e.rank);
        break;
    }
  }

  void arrive(std::uint32_t j) {
    JobState& js = jobs_[j];
    if (free_for(js)) {
      start(j);
    } else {
      js.waiting = true;
      waiting_.push_back(j);
    }
  }

  bool free_for(const JobState& js) const {
    return std::all_of(js.job->nodes.begin(), js.job->nodes.end(),
                       [&](NodeIdx n) { return busy_[n.value()] == kNone; });
  }

  void start(std::uint32_t j) {
    JobState& js = jobs_[j];
    const double now = engine_->now();
    for (const NodeIdx n : js.job->nodes) busy_[n.value()] = j;
    js.started = true;
    js.waiting = false;
    js.out.start = now;
    js.out.status = routes_.job_started(*js.job, js.rank_node, now);
    apply_changes();
    if (js.background) {
      js.background->start(now);
      for (std::uint32_t r = 0; r < js.rank_node.size(); ++r) {
        push({js.background->first(r), Ext::kInject, j, r});
      }
      return;
    }
    for (std::uint32_t r = 0; r < js.ranks.size(); ++r) progress(j, r);
  }

  /// A background node's injection time: a message to a drawn node, unless skipped.
  void inject(std::uint32_t j, std::uint32_t r) {
    JobState& js = jobs_[j];
    BackgroundSender& b = *js.background;
    const double now = engine_->now();
    if (!b.injecting(now)) {
      if (b.drained()) finish_background(j);
      return;
    }
    push({now + b.period(r), Ext::kInject, j, r});
    const std::optional<std::uint32_t> to = b.inject(r);
    if (!to) return;
    const std::uint32_t m = new_message();
    Message& msg = messages_[m];
    msg = Message{};
    msg.job = j;
    msg.src = r;
    msg.dst = *to;
    msg.bytes = js.job->background->bytes;
    msg.posted = now;
    msg.traffic_class = js.job->traffic_class;
    msg.network = true;
    ++result_.messages;
    enqueue(js.rank_node[r], m);
  }

  void finish_background(std::uint32_t j) {
    JobState& js = jobs_[j];
    if (js.done) return;
    js.done = true;
    js.out.end = engine_->now();
    if (!js.started) js.out.start = js.out.end;
    if (!js.started) {
      js.out.status = "not started: its nodes were busy";
      return;
    }
    js.background->report(js.out);
    if (jobs_left_ != 0) release(j);  // stopped early (its duration): its nodes are free
  }

  /// Moves a rank on as far as it can go now: through iterations without compute or messages.
  void progress(std::uint32_t j, std::uint32_t r) {
    JobState& js = jobs_[j];
    RankState& rs = js.ranks[r];
    while (!rs.finished && !rs.computing && !rs.at_barrier) {
      const TimingPhase& phase = js.job->phases[rs.phase];
      if (!rs.posted) {
        const double c = phase.compute.size() == 1 ? phase.compute[0] : phase.compute[r];
        rs.compute_total += c;
        if (c > 0) {
          rs.computing = true;
          push({engine_->now() + c, Ext::kComputeEnd, j, r});
          return;
        }
        post(j, r);
      }
      const PhasePlan& pp = js.phases[rs.phase];
      if (rs.sends_left != 0 || rs.received.front() != pp.in_degree[r]) return;
      // The iteration is done.
      rs.waited += engine_->now() - rs.compute_end;
      rs.received.pop_front();
      if (rs.received.empty()) rs.received.push_back(0);
      rs.posted = false;
      ++rs.g;
      if (++rs.iteration == phase.iterations) {
        rs.iteration = 0;
        if (++rs.phase == js.phases.size()) {
          finish_rank(j, r);
        } else if (js.job->phases[rs.phase].barrier_before) {
          rs.at_barrier = true;
          if (++js.at_barrier == js.ranks.size()) {
            // The last rank in: everyone resumes now (through the event queue, not recursion).
            js.at_barrier = 0;
            for (std::uint32_t q = 0; q < js.ranks.size(); ++q) {
              push({engine_->now(), Ext::kResume, j, q});
            }
          }
          return;
        }
      }
    }
  }

  void post(std::uint32_t j, std::uint32_t r) {
    JobState& js = jobs_[j];
    RankState& rs = js.ranks[r];
    rs.posted = true;
    rs.compute_end = engine_->now();
    const PhasePlan& pp = js.phases[rs.phase];
    rs.sends_left = pp.out_begin[r + 1] - pp.out_begin[r];
    for (std::uint32_t i = pp.out_begin[r]; i < pp.out_begin[r + 1]; ++i) {
      const RankFlow& f = pp.messages[i];
      const std::uint32_t m = new_message();
      Message& msg = messages_[m];
      msg.job = j;
      msg.src = f.src;
      msg.dst = f.dst;
      msg.g = rs.g;
      msg.bytes = static_cast<double>(f.bytes);
      msg.posted = engine_->now();
      msg.traffic_class = pp.cls[i];
      msg.network = false;
      msg.in_engine = false;
      msg.routes.clear();
      ++js.out.messages;
      ++result_.messages;
      const NodeIdx a = js.rank_node[f.src];
      const NodeIdx b = js.rank_node[f.dst];
      if (a == b) {
        js.out.gpu_link_bytes += msg.bytes;
        msg.routes = {{links_.gpu_link(a, js.rank_slot[f.src], js.rank_slot[f.dst])}};
        send(m, msg.routes);
      } else {
        msg.network = true;
        js.out.network_bytes += msg.bytes;
        enqueue(a, m);
      }
    }
  }

  std::uint32_t new_message() {
    if (!free_messages_.empty()) {
      const std::uint32_t m = free_messages_.back();
      free_messages_.pop_back();
      return m;
    }
    messages_.emplace_back();
    return static_cast<std::uint32_t>(messages_.size() - 1);
  }

  void send(std::uint32_t m, const std::vector<std::vector<LinkId>>& routes) {
    Message& msg = messages_[m];
    msg.in_engine = true;
    msg.admitted = engine_->now();
    engine_->start({.id = m,
                    .size = msg.bytes,
                    .routes = routes,
                    .rate_cap = 0,
                    .traffic_class = msg.traffic_class});
  }

  /// Counts a network message's routes on its links (LinkState::flows), or takes them off.
  void count_routes(const std::vector<std::vector<LinkId>>& routes, bool add) {
    const double w = 1 / static_cast<double>(routes.size());
    for (const auto& route : routes) {
      if (add) {
        link_flows_.add(route, w);
      } else {
        link_flows_.remove(route, w);
      }
    }
  }

  void network_routes(std::uint32_t m, std::vector<std::vector<LinkId>>& out) {
    const Message& msg = messages_[m];
    const JobState& js = jobs_[msg.job];
    out.clear();
    const LinkState state{engine_->link_utilisation().subspan(0, network_links_),
                          link_flows_.view()};
    routes_.routes(js.job->id, js.rank_node[msg.src], js.rank_node[msg.dst], state, out);
    if (out.empty()) {
      throw std::runtime_error("timing: job " + std::to_string(js.job->id) + ": no route from " +
                               fabric_.node(js.rank_node[msg.src]).name + " to " +
                               fabric_.node(js.rank_node[msg.dst]).name);
    }
  }

  void enqueue(NodeIdx node, std::uint32_t m) {
    nic_[node.value()].of(messages_[m].traffic_class).queue.push_back(m);
    admit(node);
  }

  void admit(NodeIdx node) {
    for (NicQueue& q : nic_[node.value()].queues) {
      while (q.active < options_.nic.limit() && !q.queue.empty()) {
        const std::uint32_t m = q.queue.front();
        q.queue.pop_front();
        ++q.active;
        Message& msg = messages_[m];
        network_routes(m, msg.routes);
        count_routes(msg.routes, true);
        send(m, msg.routes);
      }
    }
  }

  void delivered(std::uint32_t m) {
    const Message msg = std::move(messages_[m]);
    messages_[m].in_engine = false;
    messages_[m].routes.clear();
    free_messages_.push_back(m);
    JobState& js = jobs_[msg.job];
    if (options_.on_delivered) {
      options_.on_delivered({.job = js.job->id,
                             .src = msg.src,
                             .dst = msg.dst,
                             .src_node = js.rank_node[msg.src],
                             .dst_node = js.rank_node[msg.dst],
                             .bytes = msg.bytes,
                             .posted = msg.posted,
                             .admitted = msg.admitted,
                             .delivered = engine_->now(),
                             .network = msg.network,
                             .routes = msg.routes});
    }
    if (msg.network) {
      count_routes(msg.routes, false);
      const NodeIdx a = js.rank_node[msg.src];
      --nic_[a.value()].of(msg.traffic_class).active;
      admit(a);
    }
    if (js.background) {
      js.background->delivered(msg.src, engine_->now() - msg.posted);
      if (!js.background->injecting(engine_->now()) && js.background->drained()) {
        finish_background(msg.job);
      }
      return;
    }
    RankState& src = js.ranks[msg.src];
    --src.sends_left;
    RankState& dst = js.ranks[msg.dst];
    const std::uint64_t k = msg.g - dst.g;  // the receiver cannot be past the message's iteration
    if (dst.received.size() <= k) dst.received.resize(k + 1, 0);
    ++dst.received[k];
    progress(msg.job, msg.src);
    progress(msg.job, msg.dst);
  }

  void finish_rank(std::uint32_t j, std::uint32_t r) {
    JobState& js = jobs_[j];
    RankState& rs = js.ranks[r];
    rs.finished = true;
    js.out.compute_time = std::max(js.out.compute_time, rs.compute_total);
    js.out.comm_time += rs.waited / static_cast<double>(js.ranks.size());
    js.out.max_comm_time = std::max(js.out.max_comm_time, rs.waited);
    if (--js.ranks_left != 0) return;
    js.done = true;
    js.out.end = engine_->now();
    --jobs_left_;
    release(j);
  }

  /// A job's nodes go to the jobs waiting for them.
  void release(std::uint32_t j) {
    const JobState& js = jobs_[j];
    routes_.job_ended(js.job->id, engine_->now());
    for (const NodeIdx n : js.job->nodes) busy_[n.value()] = kNone;
    // Jobs waiting for nodes, in the order of their start time, then id; each takes its nodes
    // as it is found ready, so a later one cannot take them too.
    std::vector<std::uint32_t> ready;
    std::stable_sort(waiting_.begin(), waiting_.end(), [&](std::uint32_t a, std::uint32_t b) {
      const TimingJob& x = *jobs_[a].job;
      const TimingJob& y = *jobs_[b].job;
      return x.start != y.start ? x.start < y.start : x.id < y.id;
    });
    std::vector<std::uint32_t> still;
    for (const std::uint32_t w : waiting_) {
      if (free_for(jobs_[w])) {
        for (const NodeIdx n : jobs_[w].job->nodes) busy_[n.value()] = w;  // reserved
        ready.push_back(w);
      } else {
        still.push_back(w);
      }
    }
    waiting_ = std::move(still);
    apply_changes();
    for (const std::uint32_t w : ready) start(w);
  }

  /// Moves the messages in flight of the jobs the route source re-routed.
  void apply_changes() {
    const std::vector<std::uint64_t> changed = routes_.take_changed();
    if (changed.empty()) return;
    std::unordered_map<std::uint64_t, bool> moved;
    for (const std::uint64_t id : changed) moved[id] = true;
    for (std::uint32_t m = 0; m < messages_.size(); ++m) {
      Message& msg = messages_[m];
      if (!msg.in_engine || !msg.network || !moved.contains(jobs_[msg.job].job->id)) continue;
      count_routes(msg.routes, false);
      network_routes(m, msg.routes);
      count_routes(msg.routes, true);
      engine_->reroute(m, msg.routes);
    }
  }

  void sample(std::uint32_t index) {
    sampler_.record(*engine_, options_.max_samples, result_.samples);
    if (jobs_left_ != 0 && index < options_.max_samples) {
      push({options_.sample_interval * (index + 1), Ext::kSample, 0, index + 1});
    }
  }

  const Fabric& fabric_;
  RouteSource& routes_;
  const TimingOptions& options_;
  std::size_t network_links_;
  std::vector<JobState> jobs_;
  std::size_t jobs_left_ = 0;  // not background
  bool has_background_ = false;
  TimingLinks links_;
  std::unique_ptr<FlowEngine> engine_;
  std::vector<Nic> nic_;
  std::vector<std::uint32_t> busy_;  // per node: the job on it, or kNone
  std::vector<std::uint32_t> waiting_;
  std::vector<Message> messages_;
  std::vector<std::uint32_t> free_messages_;
  std::priority_queue<Ext, std::vector<Ext>, ExtLater> external_;
  std::uint64_t ext_seq_ = 0;
  LinkFlowLoads link_flows_;  // LinkState::flows
  LinkSampler sampler_;
  TimingResult result_;
};

}  // namespace

TimingResult simulate_timing(const Fabric& fabric, std::span<const TimingJob> jobs,
                             RouteSource& routes, const TimingOptions& options) {
  return TimingRun(fabric, jobs, routes, options).run();
}

}  // namespace ibsdn
