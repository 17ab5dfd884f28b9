// Contexts sharing one GPU (CUDA C++ Best Practices Guide, shared/seeds/000_..., 10.6 "Multiple
// contexts": "only one of these contexts can execute work at any given moment on that GPU;
// contexts sharing the same GPU are time-sliced"). Two equal workloads, each a row of one-warp
// kernels on one stream launched from its own host thread, run as two streams of the primary
// context, as the primary context and one created with cuCtxCreate, and as two green contexts
// on disjoint SM groups (CUDA 12.4+). Both are released by one gate; the time of both over one
// alone and the share of the time both ran at once come from the kernels' globaltimer windows.
// MPS would let two processes' kernels run at once too; it is not started here (starting its
// daemon changes the machine's settings).
#include "core/errors.hpp"
#include "core/series.hpp"
#include "declaration.hpp"
#include "setup.cuh"

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

namespace apod::concurrency {
namespace {

/// One workload: its stream, and the context its host thread makes current (nullptr: none, the
/// stream carries its context).
struct Side {
  cudaStream_t stream = nullptr;
  CUcontext context = nullptr;
};

/// A non-blocking stream created in `context` (nullptr: the current one), destroyed there.
class ContextStream {
public:
  explicit ContextStream(CUcontext context) : context_(context) {
    std::optional<ContextScope> scope;
    if (context_)
      scope.emplace(context_);
    APOD_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  }
  ~ContextStream() {
    std::optional<ContextScope> scope;
    if (context_)
      scope.emplace(context_);
    cudaStreamDestroy(stream_);
  }
  ContextStream(const ContextStream&) = delete;
  ContextStream& operator=(const ContextStream&) = delete;
  cudaStream_t get() const { return stream_; }

private:
  CUcontext context_ = nullptr;
  cudaStream_t stream_ = nullptr;
};

struct Round {
  std::vector<Window> windows;
  size_t wrong = 0, timeouts = 0;
};

// Each side's thread queues its kernels (side i: kernels [i K, i K + K)) and waits for them;
// the gate opens once every thread has queued (or failed), so the sides start together.
Round run_sides(Batch& batch, const std::vector<Side>& sides, const Setup& setup) {
  const size_t per_side = size_t(setup.sharing_kernels), n = per_side * sides.size();
  batch.reset(n);
  std::atomic<size_t> queued{0};
  std::vector<std::exception_ptr> errors(sides.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < sides.size(); ++i)
    threads.emplace_back([&, i] {
      try {
        APOD_CUDA(cudaSetDevice(setup.ordinal)); // a new thread's runtime device is 0
        std::optional<ContextScope> scope;
        if (sides[i].context)
          scope.emplace(sides[i].context);
        try {
          for (size_t k = 0; k < per_side; ++k)
            batch.launch(sides[i].stream, uint32_t(i * per_side + k), setup.steps);
        } catch (...) {
          ++queued;
          throw;
        }
        ++queued;
        APOD_CUDA(cudaStreamSynchronize(sides[i].stream));
      } catch (...) {
        errors[i] = std::current_exception();
      }
    });
  while (queued.load() < sides.size())
    std::this_thread::yield();
  batch.open();
  for (std::thread& t : threads)
    t.join();
  for (const std::exception_ptr& e : errors)
    if (e)
      std::rethrow_exception(e);
  Round r;
  r.windows = batch.windows(n, [&](size_t k) { return int(k / per_side); });
  r.wrong = batch.count_wrong(n, setup.steps);
  r.timeouts = batch.gate_timeouts(n);
  return r;
}

// Rounds of one side alone, then both; each kept round gives a slowdown and an overlap sample.
void measure_case(ExperimentContext& ctx, Batch& batch, const Setup& setup, const char* name,
                  const Side& a, const Side& b, bool time_sliced, json extra) {
  Series slow, both_overlap;
  size_t wrong = 0, timeouts = 0;
  std::vector<double> alone_ns, both_ns, alone_busy;
  for (int round = 0; round < setup.warmup + setup.samples; ++round) {
    const Round alone = run_sides(batch, {a}, setup);
    const Round both = run_sides(batch, {a, b}, setup);
    const uint8_t flags = round < setup.warmup ? 0 : setup.check_round(); // both runs
    wrong += alone.wrong + both.wrong;
    timeouts += alone.timeouts + both.timeouts;
    if (round < setup.warmup)
      continue;
    const double t_alone = double(span_ns(alone.windows)), t_both = double(span_ns(both.windows));
    alone_ns.push_back(t_alone);
    alone_busy.push_back(t_alone > 0 ? std::min(1.0, mean_concurrency(alone.windows)) : 0.0);
    both_ns.push_back(t_both);
    slow.add(t_alone > 0 ? t_both / t_alone : 0.0, flags);
    both_overlap.add(cross_overlap(both.windows), flags);
  }
  const bool ok = wrong == 0 && timeouts == 0;
  extra["elements_wrong"] = wrong;
  extra["gate_timeouts"] = timeouts;
  extra["kernels"] = setup.sharing_kernels;
  extra["chain_steps"] = setup.steps;
  extra["alone_span_us"] = summarize(alone_ns).median / 1e3;
  extra["span_us"] = summarize(both_ns).median / 1e3;
  const double busy = summarize(alone_busy).median;
  extra["alone_busy_fraction"] = busy;
  const json params = {{sharing.key, name}};
  json slow_extra = extra;
  slow_extra[keys::model] = sharing_model(time_sliced);
  ctx.record(make_measurement(params, slowdown, slow, ok, std::move(slow_extra)));
  extra[keys::model] = time_sliced ? 0.0 : side_by_side_overlap(busy, busy);
  ctx.record(make_measurement(params, overlap, both_overlap, ok, std::move(extra)));
}

} // namespace

void measure_sharing_in_one_context(ExperimentContext& ctx, Batch& batch, const Setup& setup) {
  {
    const ContextStream first(nullptr), second(nullptr);
    measure_case(ctx, batch, setup, two_streams, {first.get(), nullptr}, {second.get(), nullptr},
                 false, json::object());
  }
  // Two green contexts of the smallest partition each (8 SMs on Hopper), disjoint by the split.
  std::vector<std::unique_ptr<SmPartition>> parts;
  try {
    const CUdevice device = driver_device(ctx.device.ordinal);
    const CUdevResource all = device_sm_resource(device);
    const auto groups = split_sm_resource(all, 2, std::max(1u, all.sm.minSmPartitionSize));
    if (groups.size() < 2)
      return; // the plan's condition: no two disjoint groups, no point
    for (const CUdevResource& g : groups)
      parts.push_back(std::make_unique<SmPartition>(device, g));
  } catch (const ExperimentSkipped&) {
    return; // no green contexts on this driver or device: the plan says the point is absent
  }
  measure_case(ctx, batch, setup, two_green_contexts, {parts[0]->stream(), nullptr},
               {parts[1]->stream(), nullptr}, false,
               {{"sm_groups", {parts[0]->sm_count(), parts[1]->sm_count()}}});
}

void measure_sharing_contexts(ExperimentContext& ctx, Batch& batch, const Setup& setup,
                              const CreatedContext& created) {
  const ContextStream first(nullptr), other(created.get());
  measure_case(ctx, batch, setup, two_contexts, {first.get(), nullptr},
               {other.get(), created.get()}, true, json::object());
}

} // namespace apod::concurrency
