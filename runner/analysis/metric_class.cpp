#include "analysis/metric_class.hpp"

namespace apod {

const ClassDefaults& class_defaults(MetricClass c) {
  // Measured by tests/history/calibrate_compare (docs/ci.md, "The numbers that set the defaults")
  // on the batches of eight back-to-back runs committed under data/runs/: first on the tuning
  // batches (an H100 and an H200, *-repeat8.json.gz), then judged on the validation batches
  // (another H100 and another H200, *-validation8), which showed heavier point tails than the
  // tuning ones (device memory 2.62, on-chip 2.58, without a false alarm); the defaults now cover
  // all four, and a later batch that exceeds them fails compare_calibration. run_sigma covers the
  // largest run-to-run spread of any point of the class measured cleanly (device memory: 2.38%, the
  // H100's scaling memory curve at few SMs), device_sigma the largest spread between GPUs of one
  // model beyond it (H200 runs of 2026-11-22), tail_df the t distribution whose tails predict as
  // many large moves as seen (host links: 2.0 on the H100, whose pinned transfers hiccup 5-8%
  // for a whole point now and then). Rounded to the conservative side. When classes became each
  // experiment's declaration (issue 18), scaling's kernel and partition times joined on-chip and
  // its fitted tails on the H200 validation batch fell to df 2.20: on_chip's tail_df went from 2.5
  // to 2.0 (a wider gate; the four batches' false alarms stayed 0). Not out of sample: it was set
  // on the batches it is checked on.
  // Between GPUs (device_sigma, issue 24): measured on the current experiment versions, two H200s
  // of one machine, 3 runs each (data/runs/nvidia-h200-x2-20261126-oos-device-all.json.gz): the
  // largest spread of a point beyond its run-to-run noise, per class: device memory 0.53%
  // (scaling's memory curve), on-chip 10.7% (contended global atomics, cas_double_add at 32
  // threads per address; the next is 5%), host link 21.7% (system-memory atomics; bulk pinned
  // transfers 0.43%), host phases 25.7%. Rounded up.
  // Thresholds (issue 24): 1.5% where a 2% change must be caught (device memory, on-chip rates);
  // 3% on links, whose bulk transfers hiccup 5-8% for a whole point now and then and whose
  // regressions of interest (a lane or a generation lost) are tens of percent; 10% on host-phase
  // timings, which move 5-10% between runs of one build (docs/ci.md). Gross changes: 20% of a
  // device-memory or on-chip experiment is beyond any GPU-to-GPU spread measured (2-4% between
  // two H200s); links and host phases depend on the host, so only a halving counts there.
  static const ClassDefaults device_memory{0.025, 0.006, 2.5, true, 0.015, 0.20, true};
  static const ClassDefaults on_chip{0.035, 0.11, 2.0, true, 0.015, 0.20, true};
  static const ClassDefaults host_link{0.035, 0.22, 1.9, true, 0.03, 1.0, true};
  // GPU-to-GPU links: the host link's run-to-run defaults (DMA over a link like it). Their
  // between-GPU spread is not the host link's (set by system-memory atomics): a pair's points
  // name their peer, so two pairs are compared only across machines, and the 2.5% of before
  // stays until runs of several pairs measure it.
  static const ClassDefaults gpu_link{0.035, 0.025, 1.9, true, 0.03, 1.0, true};
  static const ClassDefaults host_phase{0.55, 0.30, 2.2, true, 0.10, 1.0, false};
  static const ClassDefaults derived{0.40, 0.25, 2.4, false, 0.015, 1.0, false};
  switch (c) {
  case MetricClass::device_memory:
    return device_memory;
  case MetricClass::on_chip:
    return on_chip;
  case MetricClass::host_link:
    return host_link;
  case MetricClass::gpu_link:
    return gpu_link;
  case MetricClass::host_phase:
    return host_phase;
  case MetricClass::derived:
    break;
  }
  return derived;
}

} // namespace apod
