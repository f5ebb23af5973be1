// Counts heap bytes in use by this process (global operator new/delete are replaced in
// alloc_counter.cpp), so a benchmark can report the peak memory of one call.
#pragma once

#include <cstddef>

namespace ibsdn::bench {

std::size_t live_bytes();
std::size_t peak_bytes();
/// Starts a new peak measurement from the current live bytes.
void reset_peak();
/// Counting is on from the start. Off, an allocation costs a plain malloc (plus the size header)
/// and live / peak bytes stay as they were: what a benchmark turns off while it times something.
void set_counting(bool on);

}  // namespace ibsdn::bench
