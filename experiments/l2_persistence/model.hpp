// Host-side arithmetic of the L2 persistence experiment (l2_persistence.cu): the sizes it sweeps
// relative to the set-aside, the access window of each mode (the guide's hitRatio 1.0 and its
// tuned hitRatio), the bytes the kernel must move, and what every word holds afterwards.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace apod {

/// How the persistent region is marked: no access window; the guide's first window (the whole
/// region, hitRatio 1.0); the guide's tuned one (hitRatio = set-aside / region).
enum class Window { none, hit_ratio_1, tuned };

/// "none", "hit_ratio_1", "tuned": the `window` parameter of the stored points.
const char* window_name(Window w);

/// The persistent region's sizes as fractions of the set-aside: the guide varies 10 to 60 MB
/// against 30 MB set aside (1/3 to 2); here 0.25 to 2 in quarters up to 1.5, then 2. Quick: 0.5
/// and 2, one size that fits and one that does not.
std::vector<double> region_ratios(bool quick);

/// `ratio` x the set-aside in bytes, rounded down to whole 4 KiB pages (at least one).
size_t region_bytes(size_t set_aside_bytes, double ratio);

/// The access window's hitRatio: 1 for hit_ratio_1, and for tuned the guide's set-aside /
/// region, at most 1, so that about the set-aside's worth of the region persists (9.2.2.2).
/// none has no window: 0.
double hit_ratio(Window w, size_t set_aside_bytes, size_t region_bytes);

/// The fewest bytes the kernel can move through DRAM: each streaming word read and written once,
/// each persistent word read once. Its effective bandwidth is measured against these.
double compulsory_bytes(size_t streaming_words, size_t region_bytes);

/// What a streaming word holds after `launches` launches of the kernel, which adds the persistent
/// word to it each time (mod 2^32).
uint32_t streaming_after(uint32_t initial, uint32_t persistent, uint64_t launches);

} // namespace apod
