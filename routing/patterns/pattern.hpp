// Communication patterns over the MPI ranks of a job, chosen by name (BookSim-style registry).
//
// A pattern turns a rank count N and a seed into rank-to-rank flows. Every pattern gives each
// ordered (src, dst) pair at most once, never src == dst, and returns the pairs ordered by source
// rank, then destination rank. Adding a pattern is one new file defining
//   std::vector<RankFlow> generate_<suffix>(const PatternSpec&, std::uint32_t ranks,
//                                           std::uint64_t seed)
// and one line in patterns.def; its name and options go into pattern_syntax.def (the syntax,
// pattern_spec.hpp, is a leaf the notice protocol shares).
//
// Grids (2dnn, 3dnn, stencil3d, stencil4d, many-to-many) are filled row-major: the last extent
// varies fastest, so for dims A x B x C rank = (a * B + b) * C + c. This is seed 001's numbering
// (its 80x48x48x48 stencil has partners 1, 48, 2304 and 110592 ranks away).
//
// Edge cases, decided here (the seeds do not say):
// - 2dnn / 3dnn use the seed's full ceil(sqrt N)^2 / ceil(cbrt N)^3 torus even when the last row /
//   plane is incomplete. A neighbour that, after wrap-around, falls on an unoccupied point
//   (index >= N) is skipped: no process lives there. The relation stays symmetric; ranks next to
//   the holes simply have fewer partners (N = 7 on 3x3: rank 6 = (2,0) talks to 3 and 0 only).
// - An extent of 1 makes both neighbours along it the rank itself: dropped. An extent of 2 makes
//   the +1 and -1 neighbours the same rank: counted once. Same for the stencils and the ring.
// - When fewer other ranks exist than partners asked for (random4 / random8 with N <= K, spread,
//   umesh near the ends of the rank range), the rank takes all of them.
// - random-perm with N = 1 has no derangement: no flows. With N = 1 every pattern is empty except
//   shift, which rejects every k (k mod 1 == 0). N = 0 is rejected.
// - many-to-many: the grid is X x Y x Z (z fastest); each line {(x, *, z)} along Y is one subset
//   with an all-to-all inside, so partners are multiples of Z ranks apart (seed 001: Z = 384,
//   subsets of Y = 128). Default dims: most_cubic(N, 3).
// - umesh: rank r draws a count in [min, max] and that many distinct partners from
//   [r - range, r + range] clipped to [0, N) (no wrap); spread draws from all other ranks. Both
//   are directed: r's draws are r's sends.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "routing/patterns/pattern_spec.hpp"

namespace ibsdn {

/// The flows of `spec` over `ranks` ranks (see the header comment for the guarantees). `seed`
/// drives the random patterns; the same seed gives the same flows on every platform. Throws
/// std::invalid_argument when the spec does not fit the rank count (dims product, shift k, matrix
/// ranks), naming the option, and for ranks == 0.
std::vector<RankFlow> generate_pattern(const PatternSpec& spec, std::uint32_t ranks,
                                       std::uint64_t seed);

/// The names patterns.def registers a generator for, in its order: the same set as
/// pattern_names(), the syntax table's (a unit test checks).
std::vector<std::string> generator_names();

/// The grid stencil3d (d = 3) or stencil4d (d = 4) uses without dims=: the thesis's shapes for
/// 1024 ranks (8x8x16, 8x8x4x4) and 1536 ranks (8x8x24, 8x8x6x4), otherwise most_cubic(ranks, d).
std::vector<std::uint32_t> default_stencil_dims(std::uint32_t ranks, std::size_t d);

/// The factorization of n into d factors whose largest factor is smallest (ties: the next largest,
/// and so on), in ascending order. most_cubic(1000, 3) == {10, 10, 10}; most_cubic(7, 3) ==
/// {1, 1, 7}. n >= 1, d >= 1.
std::vector<std::uint32_t> most_cubic(std::uint32_t n, std::size_t d);

/// The smallest r with r^k >= n, computed exactly with integers (k >= 1).
std::uint32_t ceil_root(std::uint32_t n, unsigned k);

}  // namespace ibsdn
