// Runs the overlap matrix's rows on the GPU (group.cu): one group is one variant at one size,
// every row of it measured in rounds (schedule.hpp). Declared without CUDA types so the gpu test
// beside it (test_position.cpp) can run a group with an order of its own.
#pragma once

#include "schedule.hpp"

#include "core/experiment.hpp"
#include "core/series.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace apod {

/// gist: the gist's method (its input written by the host inside the overall timer, memory,
/// stream and events created per trial, the kernel timed by events around its launch alone);
/// corrected: host writing outside the timers, memory allocated once, each stage (H2D copy,
/// kernel, D2H copy) between its own pair of events.
enum class Variant { gist, corrected };
const char* variant_name(Variant v);

/// Every trial of one row, in the order taken (one sample per measured round), with the
/// monitor's flags. Series of stages a row does not have (copies of a mapped row) stay empty.
struct RowSamples {
  Series overall_ms, kernel_ms, h2d_ms, d2h_ms;
  std::vector<double> host_init_ms;  ///< gist: the host writing the input, inside overall_ms
  std::vector<double> stage_gaps_ms; ///< corrected copy rows: overall_ms minus the three stages
  CheckResult check;                 ///< over every trial, warm-up included
};

struct GroupSamples {
  std::vector<RowSamples> rows; ///< in the order of the rows passed in
  int warmup_rounds = 0;
  bool warmup_stable = false;
  int rounds = 0;          ///< measured rounds: samples per series
  std::string stop_reason; ///< why the measured rounds ended
};

/// Which order round r (warm-up rounds first, counted from 0) visits the rows in.
using RoundOrder = std::function<std::vector<size_t>(uint64_t round)>;

/// The rounds' limits: at least min_rounds, at most max_rounds, and no new round once budget_s
/// of measured rounds is used (round_stop_reason); warm-up by WarmupRule(warmup_rounds).
struct RoundLimits {
  int warmup_rounds = 3;
  int min_rounds = 10;
  int max_rounds = 1000;
  double budget_s = 1.0;
};

/// Runs `rows` of `variant` on `n` floats of the gist's input (n a multiple of 256) on the
/// current device. `policy` supplies the monitor, asked after each measured trial. Every
/// trial's output is checked on the host (RowSamples::check).
GroupSamples run_group(Variant variant, size_t n, const std::vector<Row>& rows,
                       const RoundLimits& limits, const SamplingPolicy& policy,
                       const RoundOrder& order);

} // namespace apod
