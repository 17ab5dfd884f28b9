// Texture and read-only loads (CUDA C++ Best Practices Guide, shared/seeds/000_..., 9.2.5: the
// texture cache is "optimized for 2D spatial locality" and "a cache hit reduces DRAM bandwidth
// demand but not fetch latency"; 9.2.5.1, Table 4: filtering, normalized coordinates, clamp and
// wrap; Pascal Tuning Guide 1.4.3.2: one unified L1/texture cache since Maxwell; the Notes on
// CUDA: ld.global.ca against .cg). Seven load paths read one image in three patterns (geometry.hpp)
// and each thread writes the sum of what it read, checked on the host (model.cpp); a one-thread
// dependent chase gives the latency of a hit through each path.
#include "core/cuda_memory.cuh"
#include "core/errors.hpp"
#include "core/experiment.hpp"
#include "core/kernel_facts.cuh"
#include "core/sampling.hpp"
#include "core/series.hpp"
#include "core/timing.cuh"
#include "declaration.hpp"
#include "geometry.hpp"
#include "model.hpp"
#include "textures.cuh"

#include <algorithm>
#include <future>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace apod::texture {
namespace {

enum class Path : int { plain, ldg, ld_ca, ld_cg, tex1d, tex2d_point, tex2d_linear };

constexpr uint64_t image_seed = 0x7E47E4ull;
constexpr uint64_t chain_seed = 0xC4A1Eull;
constexpr double point_time_cap_s = 0.04; // 21 bandwidth points: 0.84 s at most
constexpr double quick_point_time_cap_s = 0.01;
constexpr double chase_time_cap_s = 0.02;         // 4 latency points
constexpr int chase_nodes = 128;                  // 16 KiB: inside every L1 from sm_75 on
constexpr int chase_warm_steps = 2 * chase_nodes; // two untimed laps in the same launch

Path path_of(const std::string& name) {
  static const std::map<std::string, Path> all = {{plain, Path::plain},
                                                  {ldg, Path::ldg},
                                                  {ld_ca, Path::ld_ca},
                                                  {ld_cg, Path::ld_cg},
                                                  {tex1d_fetch, Path::tex1d},
                                                  {tex2d_point, Path::tex2d_point},
                                                  {tex2d_linear, Path::tex2d_linear}};
  return all.at(name);
}

Pattern pattern_of(const std::string& name) {
  return name == row_stream    ? Pattern::row_stream
         : name == column_walk ? Pattern::column_walk
                               : Pattern::neighbourhood;
}

// One read of pixel (x, y) through path P. The linear paths clamp the coordinates themselves (the
// neighbourhood's edge reads); the cudaArray's texture clamps in hardware (cudaAddressModeClamp).
template <Path P, bool Clamp>
__device__ __forceinline__ float read(const float* image, cudaTextureObject_t tex, Image im, int x,
                                      int y) {
  if constexpr (P == Path::tex2d_point) {
    return tex2D<float>(tex, float(x) + 0.5f, float(y) + 0.5f);
  } else if constexpr (P == Path::tex2d_linear) {
    return tex2D<float>(tex, float(x) + (0.5f + filter_alpha), float(y) + (0.5f + filter_beta));
  } else {
    if constexpr (Clamp) {
      x = min(max(x, 0), im.width - 1);
      y = min(max(y, 0), im.height - 1);
    }
    const int i = y * im.width + x; // < 2^27 (the host checks the image's size)
    if constexpr (P == Path::plain)
      return image[i];
    else if constexpr (P == Path::ldg)
      return __ldg(image + i);
    else if constexpr (P == Path::ld_ca)
      return __ldca(image + i);
    else if constexpr (P == Path::ld_cg)
      return __ldcg(image + i);
    else
      return tex1Dfetch<float>(tex, i);
  }
}

// `image` is not __restrict__ and `out` is written: the plain path's loads stay ld.global, not
// the read-only ld.global.nc the compiler may choose for a pointer it can prove read-only.
template <Path P, Pattern Q>
__global__ void __launch_bounds__(block_size)
    read_kernel(const float* image, cudaTextureObject_t tex, Image im, float* out) {
  const uint32_t t = blockIdx.x * uint32_t(block_size) + threadIdx.x;
  float acc = 0.0f;
#pragma unroll
  for (int k = 0; k < units_per_thread; ++k) {
    int x = 0, y = 0;
    unit_pixel(Q, t, k, im, x, y);
    if constexpr (Q == Pattern::neighbourhood) {
#pragma unroll
      for (int dy = -1; dy <= 1; ++dy)
#pragma unroll
        for (int dx = -1; dx <= 1; ++dx)
          acc += read<P, true>(image, tex, im, x + dx, y + dy);
    } else {
      acc += read<P, false>(image, tex, im, x, y);
    }
  }
  out[t] = acc;
}

using ReadKernel = void (*)(const float*, cudaTextureObject_t, Image, float*);

template <Pattern Q> ReadKernel kernel_for(Path p) {
  switch (p) {
  case Path::plain:
    return read_kernel<Path::plain, Q>;
  case Path::ldg:
    return read_kernel<Path::ldg, Q>;
  case Path::ld_ca:
    return read_kernel<Path::ld_ca, Q>;
  case Path::ld_cg:
    return read_kernel<Path::ld_cg, Q>;
  case Path::tex1d:
    return read_kernel<Path::tex1d, Q>;
  case Path::tex2d_point:
    return read_kernel<Path::tex2d_point, Q>;
  case Path::tex2d_linear:
    return read_kernel<Path::tex2d_linear, Q>;
  }
  return nullptr;
}

ReadKernel kernel_for(Path p, Pattern q) {
  switch (q) {
  case Pattern::row_stream:
    return kernel_for<Pattern::row_stream>(p);
  case Pattern::column_walk:
    return kernel_for<Pattern::column_walk>(p);
  case Pattern::neighbourhood:
    return kernel_for<Pattern::neighbourhood>(p);
  }
  return nullptr;
}

struct ChaseOut {
  int last;
  long long cycles;
  unsigned long long ns;
};

__device__ __forceinline__ long long sm_cycles() {
  long long c;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
  return c;
}

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
  return t;
}

template <Path P>
__device__ __forceinline__ int chase_step(const int* chain, cudaTextureObject_t tex, int at) {
  if constexpr (P == Path::plain)
    return chain[at];
  else if constexpr (P == Path::ldg)
    return __ldg(chain + at);
  else if constexpr (P == Path::ld_cg)
    return __ldcg(chain + at);
  else
    return tex1Dfetch<int>(tex, at);
}

// One thread. The comparisons need the loaded index, so the thread waits for the last warm load
// before the clocks start and for the last timed one before they stop.
template <Path P>
__global__ void chase_kernel(const int* chain, cudaTextureObject_t tex, int start, int warm,
                             int steps, ChaseOut* out) {
  int at = start;
  for (int i = 0; i < warm; ++i)
    at = chase_step<P>(chain, tex, at);
  if (at < 0)
    __trap();
  const unsigned long long t0 = global_ns();
  const long long c0 = sm_cycles();
  for (int i = 0; i < steps; ++i)
    at = chase_step<P>(chain, tex, at);
  if (at < 0)
    __trap();
  const long long c1 = sm_cycles();
  const unsigned long long t1 = global_ns();
  *out = {at, c1 - c0, t1 - t0};
}

using ChaseKernel = void (*)(const int*, cudaTextureObject_t, int, int, int, ChaseOut*);

ChaseKernel chase_for(Path p) {
  switch (p) {
  case Path::plain:
    return chase_kernel<Path::plain>;
  case Path::ldg:
    return chase_kernel<Path::ldg>;
  case Path::ld_cg:
    return chase_kernel<Path::ld_cg>;
  default:
    return chase_kernel<Path::tex1d>;
  }
}

struct Answers {
  std::vector<double> sums, tolerance;
};

struct Bandwidth {
  std::string pattern, path;
  Series gbs;
  bool verified = false;
  json extra;
};

void run(ExperimentContext& ctx) {
  APOD_CUDA(cudaSetDevice(ctx.device.ordinal));
  const bool quick = ctx.options.quick;
  const Image im = quick ? Image{4096, 2048} : Image{8192, 4096};
  check_image(im);
  const size_t pixels = size_t(im.width) * im.height;
  int max_linear = 0;
  APOD_CUDA(
      cudaDeviceGetAttribute(&max_linear, cudaDevAttrMaxTexture1DLinearWidth, ctx.device.ordinal));
  if (size_t(max_linear) < pixels)
    throw ExperimentSkipped("a 1-D linear texture of " + std::to_string(pixels) +
                            " elements exceeds the device's maximum");

  const std::vector<float> host_image = make_image(image_seed, im);
  // The host's answers, computed on other cores while the GPU measures.
  std::map<std::pair<std::string, bool>, std::shared_future<Answers>> answers;
  for (const std::string& q : bandwidth_patterns())
    for (const bool filtered : {false, true})
      answers[{q, filtered}] =
          std::async(std::launch::async, [&, q, filtered] {
            Answers a;
            a.sums = expected_sums(host_image, im, pattern_of(q), filtered, &a.tolerance);
            return a;
          }).share();

  DeviceBuffer<float> image(pixels);
  APOD_CUDA(cudaMemcpy(image.get(), host_image.data(), image.bytes(), cudaMemcpyHostToDevice));
  CudaArray array(im.width, im.height);
  APOD_CUDA(cudaMemcpy2DToArray(array.get(), 0, 0, image.get(), im.width * sizeof(float),
                                im.width * sizeof(float), im.height, cudaMemcpyDeviceToDevice));
  const TextureObject tex1d(linear_resource(image.get(), pixels),
                            texture_desc(cudaAddressModeClamp, cudaFilterModePoint, false));
  const TextureObject tex2d_pt(array_resource(array.get()),
                               texture_desc(cudaAddressModeClamp, cudaFilterModePoint, false));
  const TextureObject tex2d_lin(array_resource(array.get()),
                                texture_desc(cudaAddressModeClamp, cudaFilterModeLinear, false));
  const auto [addressing_checked, addressing_wrong] = check_addressing();

  const uint32_t threads = thread_count(im);
  const unsigned grid = threads / block_size;
  DeviceBuffer<float> out(threads);
  OwnedStream stream;
  SamplingPolicy policy = ctx.options.sampling;
  policy.max_point_s =
      std::min(policy.max_point_s, quick ? quick_point_time_cap_s : point_time_cap_s);

  std::vector<Bandwidth> points;
  for (const std::string& q : bandwidth_patterns())
    for (const std::string& p : bandwidth_paths()) {
      const Path path = path_of(p);
      const Pattern pattern = pattern_of(q);
      const ReadKernel kernel = kernel_for(path, pattern);
      const cudaTextureObject_t tex = path == Path::tex1d         ? tex1d.get()
                                      : path == Path::tex2d_point ? tex2d_pt.get()
                                                                  : tex2d_lin.get();
      APOD_CUDA(cudaMemsetAsync(out.get(), 0xFF, out.bytes(), stream.get())); // NaN
      const TimedSamples t = time_samples_ms(policy, stream.get(), [&](cudaStream_t s) {
        kernel<<<grid, block_size, 0, s>>>(image.get(), tex, im, out.get());
        APOD_CUDA_LAUNCH();
      });
      APOD_CUDA(cudaStreamSynchronize(stream.get()));
      std::vector<float> got(threads);
      APOD_CUDA(cudaMemcpy(got.data(), out.get(), out.bytes(), cudaMemcpyDeviceToHost));
      const bool filtered = path == Path::tex2d_linear;
      const Answers& a = answers.at({q, filtered}).get();
      const size_t wrong = count_wrong(got, a.sums, a.tolerance);
      double max_error = 0;
      for (size_t i = 0; i < got.size(); ++i)
        max_error = std::max(max_error, std::abs(double(got[i]) - a.sums[i]));
      const double loaded = bytes_loaded(im, pattern), written = bytes_written(im);
      const Series ms(t);
      Bandwidth b{q, p, ms.map([&](double v) { return gbs(loaded + written, v); })};
      const bool tex2d = path == Path::tex2d_point || path == Path::tex2d_linear;
      b.verified = wrong == 0 && (!tex2d || addressing_wrong == 0);
      b.extra = {{"elements_wrong", wrong},
                 {"image", {im.width, im.height}},
                 {"reads_per_thread", reads_per_thread(pattern)},
                 {"bytes_loaded", loaded},
                 {"bytes_written", written},
                 {keys::bytes_moved, loaded + written},
                 {"image_gbs", gbs(double(pixels) * sizeof(float) + written, ms.summary().median)},
                 {"max_abs_error", max_error},
                 {"kernel", kernel_facts(kernel, block_size, grid)}};
      if (filtered)
        b.extra["max_tolerance"] =
            a.tolerance.empty() ? 0.0 : *std::max_element(a.tolerance.begin(), a.tolerance.end());
      if (tex2d) {
        b.extra["addressing_checked"] = addressing_checked;
        b.extra["addressing_wrong"] = addressing_wrong;
      }
      points.push_back(std::move(b));
    }

  for (const Bandwidth& b : points) {
    const json params = {{pattern.key, b.pattern}, {path.key, b.path}};
    ctx.record(make_measurement(params, bandwidth_metric(b.pattern), b.gbs, b.verified, b.extra));
    if (b.path == plain)
      continue;
    const Bandwidth* base = nullptr;
    for (const Bandwidth& c : points)
      if (c.pattern == b.pattern && c.path == plain)
        base = &c;
    const double plain_median = base ? base->gbs.summary().median : 0;
    if (plain_median > 0)
      ctx.record(make_measurement(
          params, over_plain, b.gbs.map([&](double v) { return v / plain_median; }),
          b.verified && base->verified, {{"elements_wrong", b.extra["elements_wrong"]}}));
  }

  // Latency: a dependent chase over 128 lines, warm laps first, in one launch per sample.
  const Chain chain = make_chain(chase_nodes, chain_seed);
  DeviceBuffer<int> d_chain(chain.words.size());
  APOD_CUDA(cudaMemcpy(d_chain.get(), chain.words.data(), d_chain.bytes(), cudaMemcpyHostToDevice));
  const TextureObject chain_tex(linear_resource(d_chain.get(), chain.words.size()),
                                texture_desc(cudaAddressModeClamp, cudaFilterModePoint, false));
  DeviceBuffer<ChaseOut> chase_out(1);
  const int steps = quick ? 1024 : 4096;
  const int expected = walk_chain(chain, chain.start, uint64_t(chase_warm_steps) + steps);
  SamplingPolicy chase_policy = ctx.options.sampling;
  chase_policy.max_point_s = std::min(chase_policy.max_point_s, chase_time_cap_s);
  struct Latency {
    std::string path;
    Series cycles;
    bool verified;
    json extra;
  };
  std::vector<Latency> latencies;
  for (const std::string& p : latency_paths()) {
    const ChaseKernel kernel = chase_for(path_of(p));
    size_t wrong = 0;
    std::vector<double> ns;
    const auto sample = [&] {
      APOD_CUDA(cudaMemset(chase_out.get(), 0xFF, sizeof(ChaseOut)));
      kernel<<<1, 1>>>(d_chain.get(), chain_tex.get(), chain.start, chase_warm_steps, steps,
                       chase_out.get());
      APOD_CUDA_LAUNCH();
      ChaseOut o{};
      APOD_CUDA(cudaMemcpy(&o, chase_out.get(), sizeof o, cudaMemcpyDeviceToHost));
      wrong += o.last != expected;
      return o;
    };
    for (int i = 0; i < chase_policy.warmup; ++i)
      sample();
    AdaptiveSampler sampler(chase_policy);
    while (sampler.want_more()) {
      const ChaseOut o = sample();
      sampler.add(double(o.cycles) / steps, chase_policy.check_sample()); // cycles, not ms
      ns.push_back(double(o.ns) / steps);
    }
    std::sort(ns.begin(), ns.end());
    latencies.push_back({p,
                         Series(sampler.finish()),
                         wrong == 0,
                         {{"elements_wrong", wrong},
                          {"ns_per_step", ns.empty() ? 0.0 : ns[ns.size() / 2]},
                          {"chain",
                           {{"nodes", chase_nodes},
                            {"bytes", chase_nodes * chain_node_ints * sizeof(int)},
                            {"warm_steps", chase_warm_steps},
                            {"timed_steps", steps},
                            {"seed", chain_seed},
                            {"expected_index", expected}}},
                          {"kernel", kernel_facts(kernel, 1, 1)}}});
  }
  const Latency* l1 = nullptr;
  for (const Latency& l : latencies)
    if (l.path == plain)
      l1 = &l;
  for (const Latency& l : latencies) {
    const json params = {{pattern.key, dependent_chase}, {path.key, l.path}};
    ctx.record(make_measurement(params, hit_latency, l.cycles, l.verified, l.extra));
    const double base = l1 ? l1->cycles.summary().median : 0;
    if (l.path != plain && base > 0)
      ctx.record(make_measurement(
          params, over_l1_hit, l.cycles.map([&](double v) { return v / base; }),
          l.verified && l1->verified, {{"elements_wrong", l.extra["elements_wrong"]}}));
  }
}

} // namespace

APOD_EXPERIMENT(experiment, run);

} // namespace apod::texture
