// Kernel launch overhead (issue 22; the Notes on CUDA, seed 002, call launches "zero-overhead").
// A one-block kernel that adds to a device counter is launched back to back on a stream (CUDA
// events around a batch: the sustained rate on the GPU's timeline), with only the host's launch
// calls timed (steady_clock: what the call costs the host), with a cudaStreamSynchronize after
// each (steady_clock: the round trip), through cudaLaunchKernelEx with and without a cluster of 2
// blocks (compute capability 9.0), and as the nodes of CUDA graphs of 10, 100 and 1000 kernels
// (a graph launch's time over its kernels; cudaGraphInstantiate's time a metric of its own). The
// counter must equal what the launches add, warm-up included, so no launch can be skipped.
#include "core/cuda_memory.cuh"
#include "core/experiment.hpp"
#include "core/in_flight.hpp"
#include "core/sampling.hpp"
#include "core/series.hpp"
#include "core/timing.cuh"
#include "declaration.hpp"
#include "launch_math.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <utility>

namespace apod {
namespace {

using launch::Method;

constexpr int block_threads = 32;
// 11 points (8 methods, 3 of them graphs with an instantiate point; 10 without clusters): the
// first H100 run took 0.8 s with a 0.1 s cap, five points at the cap; 0.15 s keeps it near 1 s.
constexpr double point_time_cap_s = 0.15;

// Every launch does work that can be checked: its first thread adds 1 to the counter.
__global__ void count_kernel(unsigned long long* counter) {
  if (threadIdx.x == 0)
    atomicAdd(counter, 1ull);
}

// Each block adds its cluster's block count (%cluster_nctarank, 1 without a cluster): a cluster
// launch of 2 blocks in a cluster of 2 adds 4, the same launch without a cluster 2.
__global__ void cluster_count_kernel(unsigned long long* counter) {
  if (threadIdx.x == 0) {
    unsigned blocks_in_cluster = 1;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(blocks_in_cluster));
#endif
    atomicAdd(counter, static_cast<unsigned long long>(blocks_in_cluster));
  }
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

/// A captured and instantiated chain of `nodes` count_kernel launches; destroys both.
class Graph {
public:
  Graph(cudaStream_t stream, unsigned long long* counter, int nodes) {
    APOD_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < nodes; ++i)
      count_kernel<<<1, block_threads, 0, stream>>>(counter);
    APOD_CUDA(cudaStreamEndCapture(stream, &graph_));
  }
  ~Graph() {
    if (exec_)
      cudaGraphExecDestroy(exec_);
    if (graph_)
      cudaGraphDestroy(graph_);
  }
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  /// Instantiates the graph (again): the old executable graph is destroyed first.
  void instantiate() {
    if (exec_)
      APOD_CUDA(cudaGraphExecDestroy(std::exchange(exec_, nullptr)));
    APOD_CUDA(cudaGraphInstantiate(&exec_, graph_, 0));
  }
  cudaGraphExec_t exec() const { return exec_; }

private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

/// One method's launches on a stream, counted as they are made.
struct Launcher {
  const Method& method;
  cudaStream_t stream;
  unsigned long long* counter;
  Graph* graph = nullptr; ///< graph methods
  long long launches = 0; ///< kernel launches made (a graph's nodes count one each)

  /// Blocks per launch and the cluster size each block adds.
  int blocks() const { return method.needs_clusters ? launch::cluster_blocks : 1; }
  int cluster() const { return method.needs_clusters ? launch::cluster_blocks : 1; }

  /// `kernels` kernels back to back (a graph: kernels / nodes graph launches).
  void batch(int kernels) {
    if (method.graph()) {
      for (int g = 0; g < kernels / method.kernels_per_call; ++g)
        APOD_CUDA(cudaGraphLaunch(graph->exec(), stream));
    } else if (method.name == "launch_ex" || method.name == "launch_ex_cluster") {
      cudaLaunchConfig_t config = {};
      config.gridDim = dim3(blocks());
      config.blockDim = dim3(block_threads);
      config.stream = stream;
      cudaLaunchAttribute attribute[1] = {};
      if (method.needs_clusters) {
        attribute[0].id = cudaLaunchAttributeClusterDimension;
        attribute[0].val.clusterDim.x = launch::cluster_blocks;
        attribute[0].val.clusterDim.y = 1;
        attribute[0].val.clusterDim.z = 1;
        config.attrs = attribute;
        config.numAttrs = 1;
      }
      for (int i = 0; i < kernels; ++i)
        APOD_CUDA(cudaLaunchKernelEx(&config, cluster_count_kernel, counter));
    } else if (method.name == "round_trip") {
      for (int i = 0; i < kernels; ++i) {
        count_kernel<<<1, block_threads, 0, stream>>>(counter);
        APOD_CUDA(cudaStreamSynchronize(stream));
      }
    } else {
      // One launch error check per batch, not per launch: cudaGetLastError is an API call of
      // its own, which would be timed with the launches.
      for (int i = 0; i < kernels; ++i)
        count_kernel<<<1, block_threads, 0, stream>>>(counter);
    }
    APOD_CUDA_LAUNCH();
    launches += kernels;
  }
};

/// Host-clock samples of `work()` (ms each), with the policy's warm-up, stopping rule and monitor.
template <class Work> TimedSamples host_samples_ms(const SamplingPolicy& policy, Work&& work) {
  for (int i = 0; i < policy.warmup; ++i)
    work();
  in_flight::PointScope point;
  AdaptiveSampler sampler(policy);
  while (sampler.want_more()) {
    const double ms = work();
    sampler.add(ms, policy.check_sample());
  }
  TimedSamples out = sampler.finish();
  out.window = point.finish();
  return out;
}

/// The counter after the point, against what the launches added.
json count_check(const Launcher& l, bool& verified) {
  unsigned long long counted = 0;
  APOD_CUDA(cudaStreamSynchronize(l.stream));
  APOD_CUDA(cudaMemcpy(&counted, l.counter, sizeof counted, cudaMemcpyDeviceToHost));
  const unsigned long long expected = launch::expected_count(l.launches, l.blocks(), l.cluster());
  verified = counted == expected;
  return {{"launches_counted", counted},
          {"launches_expected", expected},
          {"elements_wrong", verified ? 0 : 1}};
}

json point_params(const Method& m) {
  return {{launch::method.key, m.name}, {launch::kernels_per_call.key, m.kernels_per_call}};
}

void measure(ExperimentContext& ctx, const Method& m, cudaStream_t stream,
             unsigned long long* counter) {
  SamplingPolicy policy = ctx.options.sampling;
  policy.max_point_s = std::min(policy.max_point_s, point_time_cap_s);
  policy.flush_l2 = false; // nothing here reads memory
  const bool quick = ctx.options.quick;
  const int kernels = launch::kernels_per_sample(m, quick);
  APOD_CUDA(cudaMemset(counter, 0, sizeof(unsigned long long)));

  Launcher l{m, stream, counter};
  std::unique_ptr<Graph> graph;
  Series instantiate_us;
  if (m.graph()) {
    graph = std::make_unique<Graph>(stream, counter, m.kernels_per_call);
    l.graph = graph.get();
    instantiate_us = Series(host_samples_ms(policy, [&] {
                       const auto start = std::chrono::steady_clock::now();
                       graph->instantiate();
                       return ms_since(start);
                     })).map([](double ms) { return ms * 1000.0; });
    APOD_CUDA(cudaGraphUpload(graph->exec(), stream));
  }

  Series per_kernel_us;
  if (m.events) {
    per_kernel_us = Series(time_samples_ms(policy, stream, [&](cudaStream_t) {
                      l.batch(kernels);
                    })).map([&](double ms) { return launch::per_kernel_us(ms, kernels); });
  } else {
    per_kernel_us = Series(host_samples_ms(policy, [&] {
                      APOD_CUDA(cudaStreamSynchronize(stream)); // an empty queue first
                      const auto start = std::chrono::steady_clock::now();
                      l.batch(kernels);
                      const double ms = ms_since(start);
                      APOD_CUDA(cudaStreamSynchronize(stream));
                      return ms;
                    })).map([&](double ms) { return launch::per_kernel_us(ms, kernels); });
  }

  bool verified = false;
  json extra = count_check(l, verified);
  extra[launch::timed_by] = m.events ? "events" : "steady_clock";
  extra["kernels_per_sample"] = kernels;
  if (m.needs_clusters)
    extra["cluster_blocks"] = launch::cluster_blocks;
  if (m.name == "stream") // the plain launch stands for the experiment, not the graph's node
    extra[keys::headline] = true;
  ctx.record(
      make_measurement(point_params(m), launch::launch_time, per_kernel_us, verified, extra));
  if (m.graph()) {
    json instantiate_extra = extra;
    instantiate_extra[launch::timed_by] = "steady_clock";
    instantiate_extra.erase("kernels_per_sample");
    instantiate_extra.erase(keys::headline);
    ctx.record(make_measurement(point_params(m), launch::instantiate_time, instantiate_us, verified,
                                std::move(instantiate_extra)));
  }
}

bool has_clusters(const DeviceInfo& device) {
  if (device.cc_major < 9)
    return false;
  int supported = 0;
  APOD_CUDA(cudaDeviceGetAttribute(&supported, cudaDevAttrClusterLaunch, device.ordinal));
  return supported != 0;
}

void run(ExperimentContext& ctx) {
  APOD_CUDA(cudaSetDevice(ctx.device.ordinal));
  const OwnedStream stream;
  const DeviceBuffer<unsigned long long> counter(1);
  const bool clusters = has_clusters(ctx.device);
  for (const Method& m : launch::methods())
    if (!m.needs_clusters || clusters) // no cluster launch before compute capability 9.0
      measure(ctx, m, stream.get(), counter.get());
}

} // namespace

APOD_EXPERIMENT(launch::experiment, run);

} // namespace apod
