// One measured point: an experiment's parameters, a metric and every timed sample of it.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace apod {

using json = nlohmann::ordered_json;

/// Which way a metric improves; `apod compare` and the report read it.
enum class Direction { higher, lower };

const char* to_string(Direction d);
Direction direction_from_string(const std::string& s);

/// Summary statistics of a sample set (computed by `summarize`).
struct Summary {
  int n = 0;
  double median = 0, min = 0, max = 0, mean = 0, stddev = 0;
};

/// Median, min, max, mean and sample standard deviation. Empty input gives n == 0.
Summary summarize(const std::vector<double>& values);

struct Measurement {
  std::string experiment;
  json params = json::object();    ///< the point's axes, e.g. {"word_bytes":4,"offset":3}
  std::string metric;              ///< e.g. "effective_bandwidth"
  std::string unit;                ///< e.g. "GB/s"
  Direction direction = Direction::higher;
  std::vector<double> samples;     ///< every timed sample, in `unit`
  bool verified = false;           ///< output matched the host's answer
  std::string error;               ///< non-empty: the point failed and carries no figure
  json extra = json::object();     ///< experiment-specific facts (bytes moved, launch shape)

  bool ok() const { return error.empty() && verified && !samples.empty(); }
};

}  // namespace apod
