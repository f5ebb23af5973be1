// Routes of the timing simulator (timing_sim.hpp) as the controller installs them: a RouteSource
// over a ReplaySession (replay_session.hpp). When a job starts, the controller is told its
// aggregate traffic (aggregate_rank_traffic of its program, one pass, as a traffic matrix: the
// pairs the timing model sends), routes it on top of the running jobs and installs its entries;
// every host pair of the job then takes the path traced through the LFTs and those entries. When
// the controller moves a running job (its load guard), the session reports it and the job's
// messages in flight move with it. A job's end is the controller's job_end.
//
// Elephants (thesis 4.1, "SDN User": the user names the flows that carry the bytes): with
// `elephant_bytes` above 0 the controller is told only the rank pairs that send at least that many
// bytes in one pass; the others (an allreduce's 8-byte messages) are not its to route and take
// the path the fabric gives their host pair: another pair's entries where they share it, else
// the LFTs.
//
// sdn-adaptive: a job for which the controller installs no entry (its decision is "adaptive":
// leave the job to the fabric) is routed by the fabric's adaptive routing (adaptive_routes());
// otherwise it takes the installed paths like any other algorithm.
#pragma once

#include <memory>

#include "routing/lft.hpp"
#include "routing/subnet.hpp"
#include "sim_backend/replay/replay_session.hpp"
#include "sim_backend/timing/adaptive_routes.hpp"
#include "sim_backend/timing/timing_sim.hpp"

namespace ibsdn {

/// `options.routing` is a controller algorithm (not "dmodk": lft_routes() is that). `subnet` and
/// `lfts` must outlive the source. `elephant_bytes`: 0, every pair is the controller's; else the
/// threshold above. Throws std::invalid_argument for a routing the controller does not know,
/// sdn-adaptive on a fabric without adaptive routing, or a negative or non-finite threshold.
std::unique_ptr<RouteSource> controller_routes(const Subnet& subnet, const LftSet& lfts,
                                               const ReplayOptions& options,
                                               const AdaptiveRoutingOptions& adaptive = {},
                                               double elephant_bytes = 0);

}  // namespace ibsdn
