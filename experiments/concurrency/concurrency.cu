// Concurrent kernel execution and the hardware queues (CUDA C++ Best Practices Guide,
// shared/seeds/000_..., 10.5 "Concurrent Kernel Execution": kernels in different non-default
// streams can run at the same time; the Notes on CUDA, seed 002: streams' requests fall into
// CUDA_DEVICE_MAX_CONNECTIONS hardware queues, 8 by default, up to 32). 128 one-warp kernels are
// queued onto 1..64 streams behind a gate (so the host's launch rate does not limit what runs at
// once), round robin or stream by stream, then released; each kernel's globaltimer window gives
// the most kernels that ran at once and the mean. Stream by stream, a queue holds one stream's
// dependent chain and at most one kernel per connection runs; round robin, a queue's neighbours
// are independent and start together (the first H100 run: 32 at once on 8 connections). The primary
// context has the process's connection count; a context created with cuCtxCreate after setting the
// variable to another count shows whether a context reads it when it is created. sharing.cu
// measures contexts sharing the GPU (10.6).
#include "core/series.hpp"
#include "declaration.hpp"
#include "setup.cuh"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace apod::concurrency {
namespace {

// ~40 us: 16 waves of 8 kernels take 0.64 ms (stream by stream on 8 connections), one stream 5 ms.
constexpr double kernel_target_ns = 40e3;
constexpr double quick_kernel_target_ns = 10e3; // --quick
constexpr const char* connections_variable = "CUDA_DEVICE_MAX_CONNECTIONS";

/// Non-blocking streams of the current context, destroyed in it (the caller keeps the context
/// current until they are gone).
class StreamSet {
public:
  explicit StreamSet(int n) : streams_(size_t(n), nullptr) {
    for (cudaStream_t& s : streams_)
      APOD_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  }
  ~StreamSet() {
    for (cudaStream_t s : streams_)
      if (s)
        cudaStreamDestroy(s);
  }
  StreamSet(const StreamSet&) = delete;
  StreamSet& operator=(const StreamSet&) = delete;
  cudaStream_t operator[](size_t i) const { return streams_[i]; }

private:
  std::vector<cudaStream_t> streams_;
};

struct SweepPoint {
  Series peak, mean;
  size_t wrong = 0, timeouts = 0;
  std::vector<double> kernel_ns, span_ns;
};

// Warm-up rounds, then `samples` rounds: the batch queued round robin (kernel k on stream
// k mod S) or stream by stream (kernel k on stream k / (N / S)), the gate opened, every stream
// synchronised, the windows read.
SweepPoint sweep_point(Batch& batch, const StreamSet& queues, int stream_count, bool depth_first,
                       const Setup& setup) {
  SweepPoint p;
  const size_t n = size_t(setup.kernels), per_stream = n / size_t(stream_count);
  const auto stream_of = [&](size_t k) {
    return depth_first ? k / per_stream : k % size_t(stream_count);
  };
  for (int round = 0; round < setup.warmup + setup.samples; ++round) {
    batch.reset(n);
    for (size_t k = 0; k < n; ++k)
      batch.launch(queues[stream_of(k)], uint32_t(k), setup.steps);
    batch.open();
    for (int s = 0; s < stream_count; ++s)
      APOD_CUDA(cudaStreamSynchronize(queues[size_t(s)]));
    const uint8_t flags = round < setup.warmup ? 0 : setup.check_round();
    p.wrong += batch.count_wrong(n, setup.steps);
    p.timeouts += batch.gate_timeouts(n);
    if (round < setup.warmup)
      continue;
    const auto w = batch.windows(n, [&](size_t k) { return int(stream_of(k)); });
    p.peak.add(double(peak_overlap(w)), flags);
    p.mean.add(span_ns(w) > 0 ? mean_concurrency(w) : 0.0, flags); // no span: counted wrong
    p.kernel_ns.push_back(batch.median_window_ns(n));
    p.span_ns.push_back(double(span_ns(w)));
  }
  return p;
}

double median(std::vector<double> v) {
  return v.empty() ? 0.0 : summarize(v).median;
}

void sweep(ExperimentContext& ctx, Batch& batch, const Setup& setup, const char* context_name,
           int connections, const json& connection_facts) {
  const StreamSet queues(stream_counts().back());
  const std::optional<int> grids = resident_grid_limit(ctx.device.cc_major, ctx.device.cc_minor);
  const int resident_blocks = kernel_blocks_per_sm() * ctx.device.sm_count;
  for (const char* launch_order : {breadth_first, depth_first})
    for (const int s : stream_counts()) {
      const bool depth = launch_order == depth_first;
      const SweepPoint p = sweep_point(batch, queues, s, depth, setup);
      const bool ok = p.wrong == 0 && p.timeouts == 0;
      json extra = connection_facts;
      extra["elements_wrong"] = p.wrong;
      extra["gate_timeouts"] = p.timeouts;
      extra["kernels"] = setup.kernels;
      extra["chain_steps"] = setup.steps;
      extra["kernel_us"] = median(p.kernel_ns) / 1e3;
      extra["span_us"] = median(p.span_ns) / 1e3;
      extra["resident_grid_limit"] = grids ? json(*grids) : json(nullptr);
      extra[keys::model] =
          concurrency_model(s, connections, setup.kernels, grids, resident_blocks, depth);
      const json params = {
          {context.key, context_name}, {order.key, launch_order}, {streams.key, s}};
      ctx.record(make_measurement(params, peak_kernels, p.peak, ok, extra));
      ctx.record(make_measurement(params, mean_kernels, p.mean, ok, std::move(extra)));
    }
}

void run(ExperimentContext& ctx) {
  APOD_CUDA(cudaSetDevice(ctx.device.ordinal));
  Setup setup;
  setup.ordinal = ctx.device.ordinal;
  setup.samples = ctx.options.quick ? 3 : 7;
  setup.policy = &ctx.options.sampling;
  // Every kernel's memory first: it is freed last, after the contexts and streams.
  Batch batch(size_t(std::max(setup.kernels, 2 * setup.sharing_kernels)));
  {
    const StreamSet one(1);
    setup.steps = calibrate_steps(batch, one[0],
                                  ctx.options.quick ? quick_kernel_target_ns : kernel_target_ns);
  }

  // The primary context was created before this experiment ran, with the process's variable.
  const char* variable = std::getenv(connections_variable);
  const int in_effect = connections_in_effect(variable);
  const json primary_facts = {
      {"connections", in_effect},
      {"connections_source",
       variable ? std::string(connections_variable) + "=" + variable : std::string("default")}};
  sweep(ctx, batch, setup, primary, in_effect, primary_facts);
  // Before any created context: a failure there cannot take these points with it.
  measure_sharing_in_one_context(ctx, batch, setup);

  // A context created after setting the variable to another count (put back at once): if the
  // driver reads it when a context is created, this context's plateau is at the requested count
  // (the model assumes so); if it reads it once per process, the plateau stays where it was.
  const int requested = connections_to_request(in_effect);
  std::unique_ptr<CreatedContext> other;
  {
    const ScopedEnvironmentVariable set(connections_variable, std::to_string(requested));
    other = std::make_unique<CreatedContext>(ctx.device.ordinal);
  }
  {
    const ContextScope scope(other->get());
    json facts = primary_facts;
    facts["connections_requested"] = requested;
    sweep(ctx, batch, setup, created, requested, facts);
  }
  measure_sharing_contexts(ctx, batch, setup, *other);
}

} // namespace
} // namespace apod::concurrency

namespace apod {
APOD_EXPERIMENT(concurrency::experiment, concurrency::run);
}
