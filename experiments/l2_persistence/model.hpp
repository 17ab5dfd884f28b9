// Host-side arithmetic of the L2 persistence experiment (l2_persistence.cu): the set-asides and
// region sizes it sweeps (fractions of the device's largest set-aside), the access window of each
// mode (the guide's hitRatio 1.0 and its tuned hitRatio), the bytes the kernel must move, what
// every word holds afterwards, and the point that carries the best net gain.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace apod {

/// How the persistent region is marked: no access window; the guide's first window (the whole
/// region, hitRatio 1.0); the guide's tuned one (hitRatio = set-aside / region).
enum class Window { none, hit_ratio_1, tuned };

/// "none", "hit_ratio_1", "tuned": the `window` parameter of the stored points.
const char* window_name(Window w);

/// The set-asides swept, as fractions of persistingL2CacheMaxSize: 0 (the reference: the device's
/// default, nothing carved out of the L2) to the maximum the guide reserves. Quick: 0, 1/4, 1.
std::vector<double> set_aside_fractions(bool quick);

/// `fraction` x the largest set-aside in bytes, rounded down to whole 4 KiB pages; 0 for 0.
size_t set_aside_bytes(size_t max_set_aside_bytes, double fraction);

/// The persistent region's sizes as fractions of the largest set-aside: the guide varies 10 to
/// 60 MB against 30 MB set aside (1/3 to 2); here 1/4, 1/2, 1 and 2. Quick: 1/4 and 2.
std::vector<double> region_ratios(bool quick);

/// `ratio` x `set_aside_bytes` in bytes, rounded down to whole 4 KiB pages (at least one).
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

/// One measured point as the best net gain sees it: the median speed-up over the reference (no
/// set-aside, no window), whether it used an access window, and whether it is ok.
struct GainCandidate {
  double speedup = 0;
  bool windowed = false;
  bool ok = false;
};

/// The index of the windowed, ok candidate with the highest speed-up over no set-aside and no
/// window: the best a program gains by carving out a set-aside and marking its region (below 1:
/// it loses). Nothing when no windowed point is ok.
std::optional<size_t> best_net_gain(const std::vector<GainCandidate>& candidates);

} // namespace apod
