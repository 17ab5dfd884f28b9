// The achievable device-memory bandwidth, per access type: the ceilings every other bandwidth
// figure is read against, next to the theoretical one (Best Practices Guide 8.2: theoretical vs
// effective bandwidth; METHOD.md: "measure the ceilings once"). Four kernels in BabelStream's
// shapes (stream_kernels.cuh): read-only (a dot product), write-only (a fill), copy and triad,
// plus cudaMemcpyAsync device to device (a copy), on arrays of max(4 GiB, 64 x L2) each, as
// large as BabelStream's 2^29 doubles. Each kernel runs in a few launch shapes chosen from the
// committed sweep (docs/method.md); the best verified median of each type is stored as that
// type's achievable peak (keys::access_peak), and the best of those as the run's
// keys::achievable_peak, naming its type.
#include "core/device_check.cuh"
#include "core/experiment.hpp"
#include "core/kernel_facts.cuh"
#include "core/series.hpp"
#include "core/timing.cuh"
#include "core/verify.hpp"
#include "core/vocabulary.hpp"
#include "declaration.hpp"
#include "peaks.hpp"
#include "stream_kernels.cuh"

#include <algorithm>
#include <future>
#include <iterator>
#include <string>
#include <vector>

namespace apod {
namespace {

using peak::block_size;
using peak::Vec;

constexpr uint64_t x_seed = 0x9EA6C0B7, y_seed = 0x5EEDB0B5;
// Odd, so multiplying by it is invertible modulo 2^64: a wrong y word always changes z.
constexpr uint64_t triad_scalar = 0x2545F4914F6CDD1Dull;
constexpr uint64_t fill_key = 0xF111F111F111F111ull;
constexpr uint8_t poison = 0xA5;
constexpr size_t min_array_bytes = size_t(4) << 30; // BabelStream's 2^29 doubles
constexpr size_t quick_array_bytes = size_t(256) << 20;
constexpr int max_elements = 4;
// 17 points of 1.5-4.5 ms samples: the cap bounds the experiment at ~5 s should none converge.
constexpr double point_time_cap_s = 0.3;

struct Arrays {
  size_t words = 0; // 64-bit words per array
  DeviceBuffer<uint64_t> x, y, z;
  DeviceBuffer<unsigned long long> partials;
  size_t bytes() const { return words * sizeof(uint64_t); }
  size_t tiles(int elements) const { return bytes() / (sizeof(Vec) * block_size * elements); }
  const Vec* xv() const { return reinterpret_cast<const Vec*>(x.get()); }
  const Vec* yv() const { return reinterpret_cast<const Vec*>(y.get()); }
  Vec* zv() const { return reinterpret_cast<Vec*>(z.get()); }
};

using peak::Shape;

// The dot product the host expects: x . y modulo 2^64 (parallel_count's sum wraps the same way).
uint64_t host_dot(size_t words) {
  return parallel_count(words, [](size_t b, size_t e) {
    uint64_t sum = 0;
    for (size_t i = b; i < e; ++i)
      sum += fill_value(x_seed, i) * fill_value(y_seed, i);
    return size_t(sum);
  });
}

class PeakSweep {
public:
  /// `dot_expected`: the host's x . y, taken before the first timed point (see run()).
  PeakSweep(ExperimentContext& ctx, Arrays& arrays, uint64_t dot_expected)
      : ctx_(ctx), a_(arrays), dot_expected_(dot_expected) {
    policy_ = ctx.options.sampling;
    policy_.max_point_s = std::min(policy_.max_point_s, point_time_cap_s);
  }

  void memcpy_point() {
    const json params = peak::memcpy_params();
    record(
        params, 2.0 * a_.bytes(), json::object(),
        [&](cudaStream_t s) {
          APOD_CUDA(
              cudaMemcpyAsync(a_.z.get(), a_.x.get(), a_.bytes(), cudaMemcpyDeviceToDevice, s));
        },
        [&] { return check_output(a_.z.get(), a_.words, peak::CopyExpected{x_seed}); });
  }

  void kernel_point(const std::string& type, Shape shape) {
    peak::with_elements(shape.elements, [&](auto elements) {
      constexpr int E = decltype(elements)::value;
      const size_t tiles = a_.tiles(E);
      if (type == access::copy)
        launch_point(
            type, shape, peak::copy_kernel<E>, 2.0 * a_.bytes(),
            [&](unsigned g, cudaStream_t s) {
              peak::copy_kernel<E><<<g, block_size, 0, s>>>(a_.zv(), a_.xv(), tiles);
            },
            [&](unsigned) {
              return check_output(a_.z.get(), a_.words, peak::CopyExpected{x_seed});
            });
      else if (type == access::triad)
        launch_point(
            type, shape, peak::triad_kernel<E>, 3.0 * a_.bytes(),
            [&](unsigned g, cudaStream_t s) {
              peak::triad_kernel<E>
                  <<<g, block_size, 0, s>>>(a_.zv(), a_.xv(), a_.yv(), triad_scalar, tiles);
            },
            [&](unsigned) {
              return check_output(a_.z.get(), a_.words,
                                  peak::TriadExpected{x_seed, y_seed, triad_scalar});
            });
      else if (type == access::write)
        launch_point(
            type, shape, peak::fill_kernel<E>, 1.0 * a_.bytes(),
            [&](unsigned g, cudaStream_t s) {
              peak::fill_kernel<E><<<g, block_size, 0, s>>>(a_.zv(), fill_key, tiles);
            },
            [&](unsigned) {
              return check_output(a_.z.get(), a_.words, peak::FillExpected{fill_key});
            });
      else
        launch_point(
            type, shape, peak::dot_kernel<E>, 2.0 * a_.bytes(),
            [&](unsigned g, cudaStream_t s) {
              peak::dot_kernel<E>
                  <<<g, block_size, 0, s>>>(a_.xv(), a_.yv(), tiles, a_.partials.get());
            },
            [&](unsigned g) { return check_dot(g); });
    });
  }

  std::vector<Measurement>& points() { return points_; }

private:
  // A kernel point: one block per tile, or one wave of as many blocks as can be resident.
  template <class Kernel, class Launch, class Check>
  void launch_point(const std::string& type, Shape shape, Kernel kernel, double bytes,
                    Launch&& launch, Check&& check) {
    unsigned grid = unsigned(a_.tiles(shape.elements));
    if (shape.persistent) {
      int resident = 0;
      APOD_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, block_size, 0));
      grid = unsigned(std::max(1, resident) * ctx_.device.sm_count);
    }
    const json params = peak::kernel_params(type, shape);
    if (type == access::read) // the per-block partial sums are written too
      bytes += double(grid) * sizeof(unsigned long long);
    const json facts = {{"vector_bytes", int(sizeof(Vec))},
                        {keys::launch, kernel_facts(kernel, block_size, grid)}};
    record(
        params, bytes, facts,
        [&](cudaStream_t s) {
          launch(grid, s);
          APOD_CUDA_LAUNCH();
        },
        [&] { return check(grid); });
  }

  // Poison the outputs, time, check, and keep the point to choose the peaks from.
  template <class Launch, class Check>
  void record(const json& params, double bytes, const json& facts, Launch&& launch, Check&& check) {
    APOD_CUDA(cudaMemset(a_.z.get(), poison, a_.z.bytes()));
    APOD_CUDA(cudaMemset(a_.partials.get(), poison, a_.partials.bytes()));
    const TimedSamples t = time_samples_ms(policy_, nullptr, launch);
    const OutputCheck result = check();
    json extra = result.facts();
    extra.update(facts);
    extra["array_bytes"] = a_.bytes();
    points_.push_back(
        bandwidth_measurement(params, bytes, Series(t), result.ok(), std::move(extra)));
  }

  // The partials of the last launch, added on the host and compared with the host's dot.
  OutputCheck check_dot(unsigned grid) const {
    std::vector<unsigned long long> partials(grid);
    APOD_CUDA(cudaMemcpy(partials.data(), a_.partials.get(), grid * sizeof(unsigned long long),
                         cudaMemcpyDeviceToHost));
    uint64_t sum = 0;
    for (unsigned long long p : partials)
      sum += p;
    OutputCheck check;
    check.host_wrong = sum != dot_expected_;
    check.host_checked = 1;
    return check;
  }

  ExperimentContext& ctx_;
  Arrays& a_;
  uint64_t dot_expected_;
  SamplingPolicy policy_;
  std::vector<Measurement> points_;
};

// Each array max(4 GiB, 64 x L2), within a fifth of device memory (three arrays and the rest of
// the run), a whole number of the largest tiles; --quick 256 MiB.
size_t array_words(const ExperimentContext& ctx) {
  const size_t largest_tile = sizeof(Vec) * block_size * max_elements;
  size_t bytes = ctx.options.quick ? quick_array_bytes
                                   : std::max(min_array_bytes, size_t(64 * ctx.device.l2_bytes));
  bytes = std::min(bytes, size_t(ctx.device.total_memory_bytes) / 5);
  return bytes / largest_tile * largest_tile / sizeof(uint64_t);
}

void run(ExperimentContext& ctx) {
  APOD_CUDA(cudaSetDevice(ctx.device.ordinal));
  const size_t words = array_words(ctx);
  // The host's dot product (~0.2 s for 4 GiB on 16 cores) runs while the arrays are made, and
  // is awaited before anything is timed: host threads busy during a sample could delay a launch
  // behind its start event.
  std::future<uint64_t> dot_expected = std::async(std::launch::async, host_dot, words);
  const size_t max_blocks = words * sizeof(uint64_t) / (sizeof(Vec) * block_size);
  Arrays arrays{words, DeviceBuffer<uint64_t>(words), DeviceBuffer<uint64_t>(words),
                DeviceBuffer<uint64_t>(words), DeviceBuffer<unsigned long long>(max_blocks)};
  fill_device(arrays.x.get(), words, x_seed);
  fill_device(arrays.y.get(), words, y_seed);

  APOD_CUDA(cudaDeviceSynchronize());
  PeakSweep sweep(ctx, arrays, dot_expected.get());
  sweep.memcpy_point();
  const std::vector<Shape> candidates =
      ctx.options.quick
          ? std::vector<Shape>(std::begin(peak::quick_shapes), std::end(peak::quick_shapes))
          : std::vector<Shape>(std::begin(peak::shapes), std::end(peak::shapes));
  for (const char* type : peak::access_types)
    for (Shape shape : candidates)
      sweep.kernel_point(type, shape);
  std::vector<Measurement>& points = sweep.points();
  std::vector<Measurement> peaks = access_peaks(points);
  Measurement best = achievable_peak(peaks);
  for (auto& m : points)
    ctx.record(std::move(m));
  for (auto& m : peaks)
    ctx.record(std::move(m));
  ctx.record(std::move(best));
}

} // namespace

APOD_EXPERIMENT(peak::experiment, run);

} // namespace apod
