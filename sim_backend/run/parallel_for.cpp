#include "sim_backend/run/parallel_for.hpp"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace ibsdn {

void parallel_for(std::size_t count, std::size_t threads,
                  const std::function<void(std::size_t)>& work) {
  if (count == 0) return;
  std::atomic<std::size_t> next{0};
  const auto worker = [&] {
    for (std::size_t i = next.fetch_add(1); i < count; i = next.fetch_add(1)) work(i);
  };
  const std::size_t n = std::clamp<std::size_t>(threads, 1, count);
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < n; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
}

}  // namespace ibsdn
