#include "levels.hpp"

#include "declaration.hpp"
#include "sweep.hpp"

#include <stdexcept>
#include <string>
#include <utility>

namespace apod::cache_bw {
namespace {

std::vector<double> curve_at(const Curve& c, size_t r) {
  std::vector<double> out;
  for (const Series& s : c.gbs)
    out.push_back(s.values().at(r));
  return out;
}

std::vector<double> medians(const Curve& c) {
  std::vector<double> out;
  for (const Series& s : c.gbs)
    out.push_back(s.summary().median);
  return out;
}

json plateaus_json(const std::vector<Plateau>& plateaus, const std::vector<double>& gbs) {
  json out = json::array();
  for (const Plateau& p : plateaus)
    out.push_back(
        {{"gbs", median_of({gbs.begin() + long(p.first), gbs.begin() + long(p.last) + 1})},
         {"first_bytes", p.first_bytes},
         {"last_bytes", p.last_bytes},
         {"next_bytes", p.next_bytes}});
  return out;
}

class LevelRecorder {
public:
  LevelRecorder(ExperimentContext& ctx, const Curve& per_sm, const Curve& gpu)
      : ctx_(ctx), per_sm_(per_sm), gpu_(gpu), l2_(l2_bytes_of(ctx.device)) {
    for (const Curve* c : {&per_sm, &gpu}) {
      if (c->bytes.empty() || c->bytes.size() != c->gbs.size())
        throw std::invalid_argument("record_levels: one series per set, at least one set");
      for (const Series& s : c->gbs)
        if (s.size() != per_sm.gbs.front().size())
          throw std::invalid_argument("record_levels: the series differ in length");
    }
    repetitions_ = per_sm.gbs.front().size();
    flags_.assign(repetitions_, 0);
    for (const Curve* c : {&per_sm, &gpu})
      for (const Series& s : c->gbs)
        for (size_t r = 0; r < repetitions_; ++r)
          flags_[r] |= s.flag(r);
    const std::vector<double> per_sm_medians = medians(per_sm), gpu_medians = medians(gpu);
    levels_ = detect_levels(per_sm.bytes, per_sm_medians, gpu.bytes, gpu_medians, l2_);
    verified_ = per_sm.verified && gpu.verified;
    facts_ = {{"plateaus",
               {{per_sm_read, plateaus_json(levels_.per_sm, per_sm_medians)},
                {gpu_read, plateaus_json(levels_.gpu, gpu_medians)}}},
              {"of_medians",
               {{"l1", levels_.sizes.l1_bytes},
                {"l2_near", levels_.sizes.l2_near_bytes},
                {"l2", levels_.sizes.l2_bytes}}},
              {"device_l2_bytes", l2_}};
  }

  void record_all() {
    const size_t l2_end = levels_.gpu.size() - (levels_.sizes.dram_found ? 1 : 0);
    plateau("l1", per_sm_read, per_sm_, levels_.per_sm.front());
    if (l2_end >= 1)
      plateau("l2", gpu_read, gpu_, levels_.gpu.front());
    else
      failed(level_bandwidth, "l2", "no L2 plateau found in the whole-GPU curve");
    if (l2_end >= 2)
      plateau("l2_far", gpu_read, gpu_, levels_.gpu[l2_end - 1]);
    if (levels_.sizes.dram_found)
      dram(levels_.gpu.back());
    else {
      failed(level_bandwidth, dram_level, "no DRAM plateau past 1.5x the L2");
      failed(fraction_of_theoretical, dram_level, "no DRAM plateau past 1.5x the L2");
    }
    far_near();
    sizes();
  }

private:
  // A Series of f(r) for each repetition, with the repetition's flags.
  template <class F> Series per_repetition(F&& f) const {
    std::vector<double> values;
    for (size_t r = 0; r < repetitions_; ++r)
      values.push_back(f(r));
    return Series(values, flags_, stop_fixed, false);
  }

  Series plateau_series(const Curve& c, const Plateau& p) const {
    return per_repetition([&](size_t r) {
      const std::vector<double> v = curve_at(c, r);
      return median_of({v.begin() + long(p.first), v.begin() + long(p.last) + 1});
    });
  }

  json plateau_facts(const char* curve, const Plateau& p) const {
    json extra = facts_;
    extra.update({{"curve", curve},
                  {"extent_bytes", p.last_bytes},
                  {"first_bytes", p.first_bytes},
                  {"points", p.last - p.first + 1}});
    return extra;
  }

  void plateau(const char* level_name, const char* curve, const Curve& c, const Plateau& p) {
    ctx_.record(make_measurement({{level.key, level_name}}, level_bandwidth, plateau_series(c, p),
                                 verified_, plateau_facts(curve, p)));
  }

  void dram(const Plateau& p) {
    const double theoretical = ctx_.device.theoretical_bandwidth_gbs();
    json extra = plateau_facts(gpu_read, p);
    extra[keys::limit_gbs] = theoretical;
    extra["theoretical_gbs"] = theoretical;
    const Series gbs = plateau_series(gpu_, p);
    ctx_.record(
        make_measurement({{level.key, dram_level}}, level_bandwidth, gbs, verified_, extra));
    Measurement m =
        make_measurement({{level.key, dram_level}}, fraction_of_theoretical,
                         gbs.map([&](double v) { return v / theoretical; }), verified_, extra);
    if (!(theoretical > 0))
      m.error = "the device reports no theoretical DRAM bandwidth";
    ctx_.record(std::move(m));
  }

  void far_near() {
    const Series ratio = per_repetition(
        [&](size_t r) { return l2_halves(gpu_.bytes, curve_at(gpu_, r), l2_).far_over_near(); });
    const L2Halves halves = l2_halves(gpu_.bytes, medians(gpu_), l2_);
    json extra = facts_;
    extra["near_gbs"] = halves.near_gbs;
    extra["far_gbs"] = halves.far_gbs;
    Measurement point =
        make_measurement({{level.key, "l2"}}, far_near_ratio, ratio, verified_, extra);
    if (halves.far_over_near() == 0)
      point.error = "the sweep has no set in the L2's near or far half";
    ctx_.record(std::move(point));
  }

  // The sizes, detected once per repetition; a curve whose detection throws gives 0.
  void sizes() {
    std::vector<LadderLevels> per_r;
    for (size_t r = 0; r < repetitions_; ++r) {
      try {
        per_r.push_back(
            detect_levels(per_sm_.bytes, curve_at(per_sm_, r), gpu_.bytes, curve_at(gpu_, r), l2_)
                .sizes);
      } catch (const std::invalid_argument&) {
        per_r.push_back({});
      }
    }
    json extra = facts_;
    extra["detected_as"] =
        "the largest set on the level's plateau of the bandwidth curve (sweep.hpp "
        "detect_levels, memory_latency's detect_plateaus and name_levels)";
    const auto size_point = [&](const char* name, size_t LadderLevels::*field, size_t of_medians,
                                const char* missing) {
      Measurement m = make_measurement(
          {{level.key, name}}, detected_size,
          per_repetition([&](size_t r) { return double(per_r[r].*field); }), verified_, extra);
      if (of_medians == 0)
        m.error = missing;
      ctx_.record(std::move(m));
    };
    size_point("l1", &LadderLevels::l1_bytes, levels_.sizes.l1_bytes, "no L1 plateau found");
    size_point("l2", &LadderLevels::l2_bytes, levels_.sizes.l2_bytes, "no L2 plateau found");
    if (levels_.sizes.l2_near_bytes > 0)
      size_point("l2_near", &LadderLevels::l2_near_bytes, levels_.sizes.l2_near_bytes, "");
  }

  void failed(const Metric& metric, const char* level_name, const std::string& why) {
    Measurement m = make_measurement({{level.key, level_name}}, metric, Series(), false, facts_);
    m.error = why;
    ctx_.record(std::move(m));
  }

  ExperimentContext& ctx_;
  const Curve &per_sm_, &gpu_;
  int64_t l2_;
  size_t repetitions_ = 0;
  std::vector<uint8_t> flags_;
  BandwidthLevels levels_;
  bool verified_ = false;
  json facts_;
};

} // namespace

void record_levels(ExperimentContext& ctx, const Curve& per_sm, const Curve& gpu) {
  LevelRecorder(ctx, per_sm, gpu).record_all();
}

} // namespace apod::cache_bw
