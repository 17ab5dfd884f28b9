#include "analysis/siblings.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

namespace apod {

namespace {

/// One GPU of a set while it is judged: its runs and, per point, the median of its run medians.
struct GpuPoints {
  SiblingGpu* gpu = nullptr;
  std::string machine;                     ///< machine_of() its runs: where its own noise is kept
  std::map<std::string, double> log_level; ///< comparability key -> ln(level)
  std::map<std::string, const Measurement*> example; ///< key -> one of its measurements
  std::set<std::string> failed; ///< keys of gated points it measured and that failed
};

/// A level's points: an experiment's gated points of one class.
struct LevelKey {
  std::string experiment;
  MetricClass metric_class;
  bool operator<(const LevelKey& o) const {
    return std::tie(experiment, metric_class) < std::tie(o.experiment, o.metric_class);
  }
};

/// ln(a / b) turned so that positive is slower, whatever the metric's direction.
double slower_by(const Measurement& m, double log_a, double log_b) {
  return m.direction == Direction::higher ? log_b - log_a : log_a - log_b;
}

GpuPoints points_of(SiblingGpu& gpu, const std::vector<const RunRecord*>& runs) {
  GpuPoints out;
  out.gpu = &gpu;
  std::map<std::string, std::vector<double>> medians;
  for (const RunRecord* run : runs) {
    out.machine = machine_of(*run);
    for (const Measurement* m : run->measurements()) {
      if (m->comparability_key.empty() || !class_defaults(m->metric_class).gated)
        continue; // derived figures never judge a GPU
      if (!point_status(*m).ok()) {
        out.failed.insert(m->comparability_key);
        continue;
      }
      const double median = run_median(*m);
      if (!(median > 0))
        continue;
      medians[m->comparability_key].push_back(median);
      out.example[m->comparability_key] = m;
    }
  }
  for (const auto& [key, values] : medians)
    out.log_level[key] = std::log(median_of(values));
  return out;
}

/// Per GPU, the points that failed there and that more than half of its siblings measured (a
/// point a GPU never set out to measure is not counted).
void count_failed(std::vector<GpuPoints>& gpus) {
  std::map<std::string, int> count;
  for (const GpuPoints& g : gpus)
    for (const auto& [key, level] : g.log_level)
      count[key]++;
  const int n = static_cast<int>(gpus.size());
  for (GpuPoints& g : gpus)
    for (const std::string& key : g.failed)
      if (2 * count[key] > n - 1)
        g.gpu->points_missing++;
}

/// The lower median: of two values the smaller, so that a class of two experiments is slower
/// only where both are.
double lower_median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[(values.size() - 1) / 2];
}

/// Fills `level`'s verdict from its deviations: this GPU's and each sibling's against the same
/// reference.
void decide(SiblingLevel& level, double own_sigma, int own_runs, const SiblingOptions& options,
            const std::vector<double>& siblings) {
  level.siblings_low = *std::min_element(siblings.begin(), siblings.end());
  level.siblings_high = *std::max_element(siblings.begin(), siblings.end());
  const double between = sibling_sigma(level.metric_class);
  // This GPU's level and its reference each carry a run's noise: twice the variance of one GPU's
  // median over its runs.
  const double own = own_runs > 0 ? 2 * own_sigma * own_sigma / own_runs : 0;
  level.noise = std::sqrt(between * between + own);
  level.margin = std::max(options.min_margin, options.z * level.noise);
  level.slower = level.slowdown - level.siblings_high > level.margin;
  level.faster = level.siblings_low - level.slowdown > level.margin;
}

/// The GPU `g`'s levels against its siblings, over the points it measured that at least half of
/// its siblings measured too (on two GPUs, the other; on eight, a point that names a GPU of its
/// own, such as a pair, is compared with the siblings that measured it).
void judge_gpu(GpuPoints& g, const std::vector<GpuPoints>& gpus, const NoiseModel& own,
               const SiblingOptions& options) {
  struct Deviations {
    std::vector<double> own;
    std::map<const GpuPoints*, std::vector<double>> siblings;
    std::string worst_key;
    double worst = -INFINITY;
  };
  const size_t siblings_needed = std::max<size_t>(1, gpus.size() / 2); // ceil((n - 1) / 2)
  std::map<LevelKey, Deviations> by_level;
  for (const auto& [key, level] : g.log_level) {
    std::vector<const GpuPoints*> having;
    std::vector<double> sibling_levels;
    for (const GpuPoints& s : gpus)
      if (&s != &g && s.log_level.count(key)) {
        having.push_back(&s);
        sibling_levels.push_back(s.log_level.at(key));
      }
    if (having.size() < siblings_needed)
      continue;
    const Measurement& m = *g.example.at(key);
    const double reference = median_of(sibling_levels);
    Deviations& d = by_level[{m.experiment, m.metric_class}];
    const double mine = slower_by(m, level, reference);
    d.own.push_back(mine);
    if (mine > d.worst) {
      d.worst = mine;
      d.worst_key = key;
    }
    for (const GpuPoints* s : having)
      d.siblings[s].push_back(slower_by(m, s->log_level.at(key), reference));
  }
  // Per class: every experiment's level, this GPU's and each sibling's.
  std::map<MetricClass, std::vector<double>> class_own, class_noise;
  std::map<MetricClass, std::map<const GpuPoints*, std::vector<double>>> class_siblings;
  for (const auto& [key, d] : by_level) {
    if (static_cast<int>(d.own.size()) < min_whole_points)
      continue; // one or two points: a point's own figure, not the experiment's
    SiblingLevel level;
    level.experiment = key.experiment;
    level.metric_class = key.metric_class;
    level.points = static_cast<int>(d.own.size());
    level.slowdown = median_of(d.own);
    std::vector<double> siblings;
    for (const auto& [s, values] : d.siblings) {
      siblings.push_back(median_of(values));
      class_siblings[key.metric_class][s].push_back(siblings.back());
    }
    const NoiseEstimate e = own.estimate_whole(g.machine, key.experiment, key.metric_class);
    decide(level, e.sigma, e.runs > 0 ? static_cast<int>(g.gpu->run_ids.size()) : 0, options,
           siblings);
    // One experiment taken alone moves between runs by more than GPUs differ (the committed
    // current batches: up to 1.8% for a device-memory experiment, 25% for a host-link one): it
    // fails the check only where this GPU's own run-to-run noise of it is known.
    level.gating = e.runs > 0;
    g.gpu->own_noise_runs = std::max(g.gpu->own_noise_runs, e.runs);
    const Measurement& worst = *g.example.at(d.worst_key);
    level.worst_point = worst.metric + " " + worst.params.dump();
    level.worst_point_slowdown = d.worst;
    g.gpu->levels.push_back(level);
    class_own[key.metric_class].push_back(level.slowdown);
    class_noise[key.metric_class].push_back(e.runs > 0 ? e.sigma : 0);
  }
  for (const auto& [c, values] : class_own) {
    if (values.size() < 2)
      continue; // one experiment: its own level says it already
    SiblingLevel level;
    level.metric_class = c;
    level.points = static_cast<int>(values.size());
    level.slowdown = lower_median(values);
    std::vector<double> siblings;
    for (const auto& [s, levels] : class_siblings[c])
      siblings.push_back(lower_median(levels));
    const double own_sigma = median_of(class_noise[c]);
    decide(level, own_sigma, own_sigma > 0 ? static_cast<int>(g.gpu->run_ids.size()) : 0, options,
           siblings);
    g.gpu->levels.push_back(level);
  }
}

/// The stored facts of a run's device and settings, flattened: "device.pcie_current_width" ->
/// "16". Arrays of [name, value] pairs (nvidia-smi's answers) are keyed by name; other arrays by
/// index. Facts that name the GPU itself or its place (uuid, bus id, ordinal) differ between
/// any two GPUs and are left out.
void flatten(const json& j, const std::string& path, std::map<std::string, std::string>& out) {
  static const std::set<std::string> identity = {"ordinal",           "uuid",   "pci_bus_id",
                                                 "remote_pci_bus_id", "serial", "minor_number"};
  if (j.is_object()) {
    for (const auto& [key, value] : j.items())
      if (!identity.count(key))
        flatten(value, path + "." + key, out);
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) {
      const json& e = j[i];
      if (e.is_array() && e.size() == 2 && e[0].is_string()) {
        if (e[0].get<std::string>().find("bus_id") == std::string::npos &&
            e[0].get<std::string>().find("uuid") == std::string::npos)
          flatten(e[1], path + "." + e[0].get<std::string>(), out);
      } else {
        flatten(e, path + "[" + std::to_string(i) + "]", out);
      }
    }
  } else {
    out[path] = j.is_string() ? j.get<std::string>() : j.dump();
  }
}

std::map<std::string, std::string> facts_of(const RunRecord& run) {
  std::map<std::string, std::string> facts;
  flatten(to_json(run.device), "device", facts);
  if (run.environment.gpu_state)
    flatten(to_json(*run.environment.gpu_state), "gpu_state", facts);
  return facts;
}

void compare_facts(std::vector<SiblingGpu>& gpus, const std::vector<const RunRecord*>& newest) {
  std::vector<std::map<std::string, std::string>> facts;
  std::set<std::string> names;
  for (const RunRecord* run : newest) {
    facts.push_back(facts_of(*run));
    for (const auto& [name, value] : facts.back())
      names.insert(name);
  }
  const auto value_of = [&](size_t i, const std::string& name) {
    const auto it = facts[i].find(name);
    return it == facts[i].end() ? std::string("absent") : it->second;
  };
  for (size_t g = 0; g < gpus.size(); ++g)
    for (const std::string& name : names) {
      std::map<std::string, int> votes;
      for (size_t s = 0; s < gpus.size(); ++s)
        if (s != g)
          votes[value_of(s, name)]++;
      const auto common = std::max_element(votes.begin(), votes.end(),
                                           [](auto& a, auto& b) { return a.second < b.second; });
      const std::string mine = value_of(g, name);
      if (mine != common->first)
        gpus[g].facts.push_back({name, mine, common->first});
    }
}

} // namespace

double sibling_sigma(MetricClass c) {
  // The root mean square of a GPU's deviation from its siblings' median (an experiment's points
  // of the class taken whole), measured on the committed runs of several GPUs of one machine by
  // tests/unit/test_siblings.cpp (MeasuresTheGpuToGpuNoise; docs/siblings.md has the table): the
  // four H200s of nvidia-h200-x4-20261122-device-all (a set run at once and a set run in turn)
  // and the two H200s of nvidia-h200-x2-20261122-device-all. Largest of the three sets, rounded
  // up: device memory 0.27% (largest single deviation 0.62%), host link 0.33% (0.64%, the GPUs
  // run at once sharing the host), host phases 13.7% (38%). The current matrix's first such set,
  // nvidia-h200-x2-20261126-device-all (two H200s, NV18, each run twice in turn), measured host
  // link 2.9% (largest 6.5%: overlap_matrix's mapped transfers, system-memory atomics), on-chip
  // 0.22% (0.62%), device memory 0.20% (0.59%), host phases 0.79% (1.5%): host link is set to
  // 3%, on-chip to 0.5% (the largest run-to-run move of an on-chip experiment taken whole on
  // one GPU in the committed batches but one: scaling 0.52%, block_size 2.7%). The second such
  // set, nvidia-h200-x2-20261126-oos-device-all (issue 24: the same two-H200 kind, each GPU run
  // three times in turn), measured on-chip 1.07% (contended global atomics differ 3-11% between
  // the two GPUs): on-chip is set to 1.2% (measured, so in sample). GPU-to-GPU
  // links: compare's between-GPU default (metric_class.cpp); a pair's points name their peer, so
  // two GPUs never share one (docs/siblings.md).
  switch (c) {
  case MetricClass::device_memory:
    return 0.003;
  case MetricClass::host_link:
    return 0.03;
  case MetricClass::on_chip:
    return 0.012;
  case MetricClass::host_phase:
    return 0.14;
  case MetricClass::gpu_link:
  case MetricClass::derived:
    break;
  }
  return class_defaults(c).device_sigma;
}

bool SiblingGpu::flagged() const {
  return std::any_of(levels.begin(), levels.end(),
                     [](const SiblingLevel& l) { return l.slower && l.gating; });
}

int SiblingVerdict::flagged() const {
  int n = 0;
  for (const SiblingSet& s : sets)
    n += static_cast<int>(std::count_if(s.gpus.begin(), s.gpus.end(),
                                        [](const SiblingGpu& g) { return g.flagged(); }));
  return n;
}

int SiblingVerdict::exit_code() const {
  return flagged() > 0 && !quick ? 1 : 0;
}

SiblingVerdict judge_siblings(const std::vector<const RunRecord*>& runs, const NoiseModel& own,
                              const SiblingOptions& options) {
  SiblingVerdict verdict;
  verdict.options = options;
  // host + model -> uuid -> runs, in start order
  std::map<std::pair<std::string, std::string>,
           std::map<std::string, std::vector<const RunRecord*>>>
      sets;
  for (const RunRecord* run : runs) {
    sets[{run->environment.host, run->device.name}][run->device.uuid].push_back(run);
    const auto& sampling = run->environment.sampling;
    verdict.quick = verdict.quick || (sampling && sampling->quick.value_or(false));
  }
  for (auto& [where, by_gpu] : sets) {
    SiblingSet set;
    set.host = where.first;
    set.model = where.second;
    std::vector<const RunRecord*> newest;
    for (auto& [uuid, gpu_runs] : by_gpu) {
      std::stable_sort(
          gpu_runs.begin(), gpu_runs.end(),
          [](const RunRecord* a, const RunRecord* b) { return a->started_at < b->started_at; });
      SiblingGpu gpu;
      gpu.uuid = uuid;
      gpu.pci_bus_id = gpu_runs.back()->device.pci_bus_id;
      gpu.ordinal = gpu_runs.back()->device.ordinal;
      for (const RunRecord* r : gpu_runs)
        gpu.run_ids.push_back(r->id);
      set.gpus.push_back(gpu);
      newest.push_back(gpu_runs.back());
    }
    if (set.gpus.size() < 2) {
      set.not_judged = "one GPU of this model on this host: no sibling to judge it against";
      verdict.sets.push_back(set);
      continue;
    }
    compare_facts(set.gpus, newest);
    std::vector<GpuPoints> points;
    size_t i = 0;
    for (auto& [uuid, gpu_runs] : by_gpu)
      points.push_back(points_of(set.gpus[i++], gpu_runs));
    count_failed(points);
    for (GpuPoints& g : points)
      judge_gpu(g, points, own, options);
    std::stable_sort(
        set.gpus.begin(), set.gpus.end(),
        [](const SiblingGpu& a, const SiblingGpu& b) { return a.ordinal < b.ordinal; });
    verdict.sets.push_back(set);
  }
  return verdict;
}

std::vector<std::vector<const RunRecord*>> device_all_sets(const std::vector<RunRecord>& runs) {
  std::vector<const RunRecord*> ordered;
  for (const RunRecord& r : runs)
    if (r.environment.device_all)
      ordered.push_back(&r);
  std::stable_sort(ordered.begin(), ordered.end(), [](const RunRecord* a, const RunRecord* b) {
    return a->started_at < b->started_at;
  });
  struct Open {
    size_t index;                             ///< into `sets`
    std::map<std::string, std::string> batch; ///< uuid -> its --repeat batch ("" none)
  };
  std::vector<std::vector<const RunRecord*>> sets;
  std::map<std::string, Open> open; // host|devices|mode -> the set being filled
  for (const RunRecord* r : ordered) {
    const DeviceAll& all = *r->environment.device_all;
    const std::string where =
        r->environment.host + "|" + std::to_string(all.devices) + "|" + all.mode;
    const std::string batch = r->environment.repeat ? r->environment.repeat->batch : "";
    auto it = open.find(where);
    const bool new_set =
        it == open.end() || (it->second.batch.count(r->device.uuid) &&
                             (batch.empty() || it->second.batch[r->device.uuid] != batch));
    if (new_set) {
      sets.emplace_back();
      it = open.insert_or_assign(where, Open{sets.size() - 1, {}}).first;
    }
    it->second.batch[r->device.uuid] = batch;
    sets[it->second.index].push_back(r);
  }
  return sets;
}

} // namespace apod
