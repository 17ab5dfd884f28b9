// A SYNTHETIC history for the report's size test and its benchmark (bench_report.cpp): any number
// of runs shaped like the current matrix (peak_copy, offset_copy, stride_copy, host_transfer,
// scaling, overlap_matrix, staged_copy: ~470 points a run, 10-60 samples each), schema 2, with
// environments, telemetry at 4 Hz and --repeat batches. Nothing here was measured; the document's
// generator says so. Deterministic: the same arguments give the same document, byte for byte.
#pragma once

#include "core/measurement.hpp" // apod::summarize: the stored statistics come from the samples

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace apod::report::test {

class SyntheticNoise {
public:
  explicit SyntheticNoise(std::uint64_t seed) : state_(seed) {}
  /// Uniform in [0, 1) (splitmix64).
  double uniform() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return double((z ^ (z >> 31)) >> 11) * 0x1p-53;
  }
  /// `value` times (1 +- spread).
  double around(double value, double spread) { return value * (1 + (2 * uniform() - 1) * spread); }

private:
  std::uint64_t state_;
};

/// The declarations of the synthetic history's experiments, in the catalog's wire form
/// (core/catalog.hpp): fictional ones, shaped like the matrix, for the report's benchmark.
inline nlohmann::ordered_json synthetic_matrix_catalog() {
  using json = nlohmann::ordered_json;
  struct Figure {
    const char *name, *unit, *direction, *metric_class, *limit;
  };
  auto declaration = [](const char* name, const char* title, int order,
                        std::vector<const char*> params, std::vector<Figure> metrics, const char* x,
                        bool log_x, const char* colour, const char* mark) {
    json params_json = json::array(), metrics_json = json::array();
    for (const char* key : params)
      params_json.push_back(
          {{"key", key}, {"title", key}, {"unit", std::string(key) == "bytes" ? "bytes" : ""}});
    for (const Figure& f : metrics)
      metrics_json.push_back({{"name", f.name},
                              {"unit", f.unit},
                              {"direction", f.direction},
                              {"class", f.metric_class},
                              {"limit", f.limit}});
    return json{{"name", name},
                {"title", title},
                {"description", "SYNTHETIC declaration for the report's benchmark."},
                {"citation", "synthetic"},
                {"version", 1},
                {"order", order},
                {"params", params_json},
                {"metrics", metrics_json},
                {"charts", json::array({{{"metric", metrics.front().name},
                                         {"caption", std::string(title) + " against " + x},
                                         {"x", x},
                                         {"log_x", log_x},
                                         {"color", colour},
                                         {"mark", mark}}})}};
  };
  const Figure bandwidth{"effective_bandwidth", "GB/s", "higher", "device_memory", "dram"};
  const Figure peak{"achievable_peak", "GB/s", "higher", "device_memory", "dram"};
  const Figure link{"effective_bandwidth", "GB/s", "higher", "host_link", "pcie"};
  const Figure h2d{"h2d_bandwidth", "GB/s", "higher", "host_link", "pcie"};
  auto times = [](std::vector<const char*> names, const char* unit, const char* direction) {
    std::vector<Figure> all;
    for (const char* n : names)
      all.push_back({n, unit, direction, "host_phase", "none"});
    return all;
  };
  std::vector<Figure> staged =
      times({"total_ms", "model_ms", "parallel_fraction", "amdahl_limit"}, "ms", "lower");
  staged.push_back(h2d);
  return {{"format", "apod-catalog"},
          {"version", 1},
          {"experiments",
           json::array(
               {declaration(
                    "peak_copy", "Achievable copy bandwidth", 5,
                    {"method", "vector_bytes", "elements_per_thread", "blocks_per_sm", "config"},
                    {bandwidth, peak}, "config", false, "", "bar"),
                declaration("offset_copy", "Misaligned copy", 10, {"word_bytes", "offset"},
                            {bandwidth}, "offset", false, "word_bytes", "line"),
                declaration("stride_copy", "Strided copy", 20, {"word_bytes", "stride"},
                            {bandwidth}, "stride", false, "", "line"),
                declaration("host_transfer", "Host transfers", 30, {"series", "bytes"}, {link},
                            "bytes", true, "series", "line"),
                declaration("scaling", "Scaling", 40, {"law", "sm_count"},
                            {{"speedup", "x", "higher", "derived", "none"},
                             {"fitted_parallel_fraction", "1", "higher", "derived", "none"}},
                            "sm_count", false, "law", "line"),
                declaration("overlap_matrix", "Overlap matrix", 50, {"n", "kernel", "config"},
                            times({"overall_ms", "kernel_ms", "overhead_ms", "ratio_to_first_row"},
                                  "ms", "lower"),
                            "config", false, "kernel", "bar"),
                declaration("staged_copy", "Staged copy", 60, {"n_streams", "mode"}, staged,
                            "n_streams", true, "mode", "line")})}};
}

/// The shape of a synthetic history.
struct SyntheticShape {
  int runs = 100;
  int a100_every = 0; ///< every a100_every-th run on an A100 instead of an H200 (0: never)
  /// 0: the old calendar (runs on days 1-28 of each month, one a night). 3: a fleet of three
  /// machines, one run each a night, nights on a real calendar from 2026-01-01 (1000 runs: a
  /// year): two H200 hosts and an A100 host.
  int machines = 0;
  int min_samples = 10; ///< each point has min_samples + [0, extra_samples) samples
  int extra_samples = 50;
};

/// "2026-01-01" plus `days`, as YYYY-MM-DD (H. Hinnant's civil_from_days).
inline std::string synthetic_date(int days) {
  const int z = days + 20454 + 719468; // 20454: 2026-01-01 in days since 1970
  const int era = z / 146097, doe = z - era * 146097;
  const int yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
  const int day = doy - (153 * mp + 2) / 5 + 1, month = mp < 10 ? mp + 3 : mp - 9;
  return fmt::format("{:04d}-{:02d}-{:02d}", yoe + era * 400 + (month <= 2), month, day);
}

inline nlohmann::ordered_json synthetic_history(const SyntheticShape& shape);

/// `runs` runs on an H200 (every `a100_every`-th run on an A100 instead, 0: never), oldest first.
inline nlohmann::ordered_json synthetic_history(int runs, int a100_every = 0) {
  SyntheticShape shape;
  shape.runs = runs;
  shape.a100_every = a100_every;
  return synthetic_history(shape);
}

inline nlohmann::ordered_json synthetic_history(const SyntheticShape& shape) {
  const int runs = shape.runs, a100_every = shape.a100_every;
  using json = nlohmann::ordered_json;
  SyntheticNoise noise(42);
  const std::string synthetic =
      "synthetic history (tests/report/synthetic_history.hpp), not a measurement";

  auto measurement = [&](const char* experiment, json params, const char* metric, const char* unit,
                         const char* direction, double centre, double spread) {
    const int n = shape.min_samples + static_cast<int>(noise.uniform() * shape.extra_samples);
    std::vector<double> samples;
    json excluded = json::array();
    std::vector<double> used;
    for (int i = 0; i < n; ++i) {
      samples.push_back(noise.around(centre, spread));
      const int flag = noise.uniform() < 0.02 ? 2 : 0;
      excluded.push_back(flag);
      if (!flag)
        used.push_back(samples.back());
    }
    const Summary s = summarize(used);
    return json{{"experiment", experiment},
                {"params", std::move(params)},
                {"metric", metric},
                {"unit", unit},
                {"direction", direction},
                {"median", s.median},
                {"min", s.min},
                {"max", s.max},
                {"mean", s.mean},
                {"stddev", s.stddev},
                {"rsd", s.rsd},
                {"q1", s.q1},
                {"q3", s.q3},
                {"iqr", s.iqr},
                {"ci_low", s.ci_low},
                {"ci_high", s.ci_high},
                {"n", n},
                {"samples", samples},
                {"sample_excluded", excluded},
                {"dropped", n - static_cast<int>(used.size())},
                {"stop_reason", n >= 59 ? "time_cap" : "converged"},
                {"noisy", n >= 59},
                {"comparability_key", ""},
                {"verified", true},
                {"status", "ok"},
                {"error", nullptr},
                {"extra", {{"bytes_moved", 2147483648.0}}}};
  };

  json document = {{"format", "apod-results"},
                   {"schema_version", 2},
                   {"generator", synthetic},
                   {"runs", json::array()}};
  for (int r = 0; r < runs; ++r) {
    const bool a100 =
        shape.machines == 3 ? r % 3 == 2 : a100_every > 0 && r % a100_every == a100_every - 1;
    const double pcie = a100 ? 31.5 : 63.0; // each figure in proportion to its own device's limits
    const double dram = a100 ? 1555.2 : 4814.3;
    json measurements = json::array();
    auto add = [&](json m, const std::string& model) {
      m["comparability_key"] = comparability_key(model, "570", m["experiment"].get<std::string>(),
                                                 1, m["params"], m["metric"].get<std::string>());
      measurements.push_back(std::move(m));
    };
    const std::string model = a100 ? "NVIDIA A100-SXM4-40GB" : "NVIDIA H200";

    double best = 0;
    for (int vector_bytes : {4, 8, 16})
      for (int elements : {1, 2, 4, 8})
        for (int blocks : {0, 1, 2, 4, 8}) {
          const std::string config = fmt::format("v{} e{} {}", vector_bytes, elements,
                                                 blocks ? fmt::format("b{}", blocks) : "full");
          const double centre = dram * (0.70 + 0.012 * vector_bytes + 0.01 * elements);
          json m = measurement("peak_copy",
                               {{"method", "kernel"},
                                {"vector_bytes", vector_bytes},
                                {"elements_per_thread", elements},
                                {"blocks_per_sm", blocks},
                                {"config", config}},
                               "effective_bandwidth", "GB/s", "higher", centre, 0.01);
          best = std::max(best, m["median"].get<double>());
          add(std::move(m), model);
        }
    add(measurement("peak_copy", {{"method", "memcpy"}, {"config", "memcpy"}},
                    "effective_bandwidth", "GB/s", "higher", dram * 0.8, 0.01),
        model);
    add(measurement("peak_copy", {{"method", "best"}}, "achievable_peak", "GB/s", "higher", best,
                    0.005),
        model);
    for (int word_bytes : {4, 8})
      for (int offset = 0; offset <= 32; ++offset)
        add(measurement("offset_copy", {{"word_bytes", word_bytes}, {"offset", offset}},
                        "effective_bandwidth", "GB/s", "higher",
                        dram * (offset % (32 / word_bytes) ? 0.55 : 0.8), 0.01),
            model);
    for (int stride = 1; stride <= 16; ++stride)
      add(measurement("stride_copy", {{"word_bytes", 4}, {"stride", stride}}, "effective_bandwidth",
                      "GB/s", "higher", dram * 0.8 / stride, 0.01),
          model);
    for (const char* series :
         {"h2d pageable", "h2d pinned", "d2h pageable", "d2h pinned", "zero_copy mapped"})
      for (double bytes = 4096; bytes <= 268435456; bytes *= 4)
        add(measurement("host_transfer", {{"series", series}, {"bytes", bytes}},
                        "effective_bandwidth", "GB/s", "higher",
                        0.87 * pcie * bytes / (bytes + 2e5), 0.02),
            model);
    for (const char* law : {"strong", "weak"}) {
      for (int sms = 8; sms <= 132; sms += 16)
        add(measurement("scaling", {{"law", law}, {"sm_count", sms}}, "speedup", "x", "higher",
                        sms / 8.0 * 0.9, 0.01),
            model);
      add(measurement("scaling", {{"law", law}}, "fitted_parallel_fraction", "1", "higher", 0.95,
                      0.01),
          model);
    }
    for (int n : {16384, 1048576})
      for (const char* kernel : {"fast", "medium", "slow"})
        for (const char* config : {"pinned mapped", "pinned", "pageable", "pinned mapped new",
                                   "pinned new", "pageable new"})
          for (const char* metric : {"overall_ms", "kernel_ms", "overhead_ms", "ratio_to_first_row",
                                     "parallel_fraction", "amdahl_limit"})
            add(measurement("overlap_matrix", {{"n", n}, {"kernel", kernel}, {"config", config}},
                            metric, "ms", "lower", 0.02 + n / 1e7, 0.03),
                model);
    for (const char* mode : {"sequential", "staged"})
      for (int streams = 1; streams <= 32; streams *= 2)
        for (const char* metric : {"total_ms", "model_ms", "parallel_fraction", "amdahl_limit"})
          add(measurement("staged_copy", {{"n_streams", streams}, {"mode", mode}}, metric, "ms",
                          "lower", 12.0 / std::sqrt(streams), 0.01),
              model);
    add(measurement("staged_copy", {{"n_streams", 1}, {"mode", "alone"}}, "h2d_bandwidth", "GB/s",
                    "higher", 0.86 * pcie, 0.01),
        model);

    json telemetry = json::array();
    for (int t = 0; t < 160; ++t)
      telemetry.push_back({{"t_s", t * 0.25},
                           {"sm_clock_mhz", noise.uniform() < 0.05 ? 1500 : 1980},
                           {"memory_clock_mhz", 3201},
                           {"temperature_c", 35 + t / 10},
                           {"power_w", noise.around(a100 ? 300 : 520, 0.1)},
                           {"throttle_reasons", 0}});
    json experiments = json::array();
    for (const char* name : {"peak_copy", "offset_copy", "stride_copy", "host_transfer", "scaling",
                             "overlap_matrix", "staged_copy"})
      experiments.push_back({{"name", name},
                             {"version", 1},
                             {"status", "complete"},
                             {"error", nullptr},
                             {"started_at", nullptr},
                             {"wall_s", noise.around(5, 0.5)}});
    const int day = r % 28 + 1, month = r / 28 % 12 + 1;
    const std::string date =
        shape.machines == 3 ? synthetic_date(r / 3) : fmt::format("2026-{:02d}-{:02d}", month, day);
    const std::string host = shape.machines == 3 ? fmt::format("node-{}", r % 3 + 1) : "synthetic";
    json run = {
        {"id", fmt::format("{:08x}{:024x}", 0x5e000000u + r, r * 7919u)},
        {"label", "nightly"},
        {"started_at", date + "T02:00:00.000Z"},
        {"finished_at", date + "T02:00:41.000Z"},
        {"status", "complete"},
        {"apod_version", "0.1.0"},
        {"environment",
         {{"host", host},
          {"os", "Ubuntu 24.04.3 LTS"},
          {"kernel", r < runs / 2 ? "Linux 6.8.0" : "Linux 6.8.1"},
          {"machine", "x86_64"},
          {"cpu_model", "synthetic CPU"},
          {"cpu_count", 16},
          {"apod_version", "0.1.0"},
          {"apod_commit", "0123456789ab"},
          {"apod_dirty", false},
          {"compiler", "gcc 12.2.0 + nvcc 13.0.88"},
          {"build_type", "release"},
          {"cuda_architectures", "75,80,90"},
          {"note", synthetic},
          {"gpu_state",
           {{"nvml", "available"},
            {"driver_version", "570.86.15"},
            {"driver_branch", "570"},
            {"persistence_mode", 1},
            {"compute_mode", "default"},
            {"mig_mode", 0},
            {"power_limit_w", 700.0},
            {"max_sm_clock_mhz", 1980},
            {"max_memory_clock_mhz", 3201}}},
          {"sampling",
           {{"min_samples", 10},
            {"max_samples", 1000},
            {"target_ci_rel", 0.005},
            {"max_point_s", 1.0},
            {"flush_l2", true},
            {"monitor_clocks", true}}},
          {"repeat",
           {{"index", r % 5 + 1}, {"count", 5}, {"batch", fmt::format("b{:04d}", r / 5)}}}}},
        {"device",
         {{"ordinal", 0},
          {"name", model},
          {"uuid", a100                  ? std::string("GPU-synthetic-a100")
                   : shape.machines == 3 ? fmt::format("GPU-synthetic-h200-{}", r % 3)
                                         : std::string("GPU-synthetic-h200")},
          {"compute_capability", a100 ? "8.0" : "9.0"},
          {"sm_count", a100 ? 108 : 132},
          {"theoretical_bandwidth_gbs", dram},
          {"theoretical_pcie_gbs", pcie}}},
        {"experiments", std::move(experiments)},
        {"telemetry", std::move(telemetry)},
        {"measurements", std::move(measurements)},
    };
    document["runs"].push_back(std::move(run));
  }
  return document;
}

} // namespace apod::report::test
