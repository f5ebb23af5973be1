// Work over an index range on several threads, as `ibsdn-sim run` runs a sweep's runs and then
// renders its plots: each thread takes the next index as soon as it is free, so a slow item holds
// up only its own thread. Used by cli/cmd_run.cpp (the runs) and gnuplot_runner.cpp (gnuplot).
#pragma once

#include <cstddef>
#include <functional>

namespace ibsdn {

/// Calls `work(i)` once for every i in [0, count), on min(threads, count) threads (at least one;
/// the calling thread is one of them), and returns when every call has returned. `work` must not
/// throw: it runs on threads that cannot pass an exception on.
void parallel_for(std::size_t count, std::size_t threads,
                  const std::function<void(std::size_t)>& work);

}  // namespace ibsdn
