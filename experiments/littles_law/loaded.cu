#include "core/kernel_facts.cuh"
#include "core/timing.cuh"
#include "loaded.cuh"
#include "loaded.hpp"

#include <algorithm>
#include <numeric>
#include <random>

namespace apod {
namespace {

constexpr int stream_block = 512;                // background threads per block
constexpr int block_threads = stream_block + 32; // and one more warp: block 0's chases
constexpr int stream_loads = 2;  // independent 16-byte loads per thread per iteration
constexpr int line_words = 32;   // 128-byte lines: one chase node per line
constexpr int warmup_steps = 64; // chase steps before the timed ones (the copy ramps up)
constexpr uint64_t wait_timeout_ns = 200'000'000; // all blocks resident within 0.2 s, or fail
constexpr uint64_t pattern = 0xA5A5A5A5A5A5A5A5ull;
constexpr uint64_t chain_seed = 0x10ADED;

// What the chase thread and the background warps share; zeroed before every launch.
struct Control {
  unsigned started;                   // background blocks running
  unsigned phase;                     // 0 warming up, 1 chase timed, 2 done
  unsigned status;                    // 1: not every block became resident in time
  unsigned pos;                       // chase position (line), in and out
  unsigned long long ns, cycles;      // the timed steps' globaltimer and clock64 spans
  unsigned long long warp_iterations; // background warp iterations issued while phase was 1
  unsigned long long busy_cycles;     // of those, lane 0's cycles from loads' to stores' issue
};

__device__ __forceinline__ uint64_t global_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
  return t;
}

__device__ void chase(Control* c, const unsigned* chain, int steps, unsigned blocks) {
  volatile Control* v = c;
  const uint64_t t_wait = global_ns();
  while (v->started < blocks)
    if (global_ns() - t_wait > wait_timeout_ns) {
      v->status = 1;
      break;
    }
  unsigned p = v->pos;
  for (int i = 0; i < warmup_steps; ++i)
    p = __ldcg(chain + size_t(p) * line_words);
  v->pos = p; // the store waits for the last load: the timer starts after it
  v->phase = 1;
  __threadfence();
  const uint64_t t0 = global_ns();
  const long long c0 = clock64();
  for (int i = 0; i < steps; ++i)
    p = __ldcg(chain + size_t(p) * line_words);
  v->pos = p;
  const long long c1 = clock64();
  const uint64_t t1 = global_ns();
  v->phase = 2;
  __threadfence();
  v->ns = t1 - t0;
  v->cycles = c1 - c0;
}

// Each warp copies tiles of stream_block x stream_loads 16-byte words, all loads issued before
// its stores, then waits `delay` cycles asleep (the issue slots stay free for the chase). Each
// thread also times its counted iterations from its loads' issue to its stores' issue (the stores
// wait for the loaded data): the latency the copy's own loads see, beside the chase's.
__device__ void background(Control* c, uint4* out, const uint4* in, size_t tiles, int delay) {
  volatile Control* v = c;
  size_t tile = blockIdx.x;
  unsigned long long counted = 0, busy = 0;
  for (;;) {
    const long long t0 = clock64();
    const unsigned phase_now = v->phase; // issued before the loads, read after the stores
    const size_t base = tile * (stream_block * stream_loads) + threadIdx.x;
    uint4 x[stream_loads];
#pragma unroll
    for (int k = 0; k < stream_loads; ++k)
      x[k] = in[base + k * stream_block];
#pragma unroll
    for (int k = 0; k < stream_loads; ++k)
      out[base + k * stream_block] = x[k];
    const long long t1 = clock64();
    const unsigned phase = __shfl_sync(0xffffffffu, phase_now, 0);
    if (phase == 2)
      break;
    counted += phase == 1;
    busy += phase == 1 ? t1 - t0 : 0;
    if (delay > 0) {
      const long long t = clock64();
      while (clock64() - t < delay)
        __nanosleep(64);
    }
    tile += gridDim.x;
    if (tile >= tiles)
      tile -= tiles;
  }
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(&c->warp_iterations, counted);
    atomicAdd(&c->busy_cycles, busy);
  }
}

// Every block copies with its first 512 threads, so every SM carries the same background; the
// extra warp of block 0 chases (its lane 0) on an SM as loaded as the others, and the extra warps
// of the other blocks leave at once.
__global__ void __launch_bounds__(block_threads)
    loaded_kernel(Control* c, const unsigned* chain, int steps, uint4* out, const uint4* in,
                  size_t tiles, int delay, bool with_background) {
  if (threadIdx.x >= stream_block) {
    if (blockIdx.x == 0 && threadIdx.x == stream_block)
      chase(c, chain, steps, with_background ? gridDim.x : 0);
    return;
  }
  if (!with_background)
    return;
  if (threadIdx.x == 0)
    atomicAdd(&c->started, 1u);
  background(c, out, in, tiles, delay);
}

// chain[line * 32] = the next line of one random cycle through every line (Sattolo's shuffle).
__global__ void scatter_chain_kernel(unsigned* chain, const unsigned* next, size_t lines) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < lines;
       i += size_t(gridDim.x) * blockDim.x)
    chain[i * line_words] = next[i];
}

__global__ void copied_wrong_kernel(const uint64_t* out, size_t words, uint64_t fill_seed,
                                    unsigned long long* wrong) {
  unsigned long long local = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < words;
       i += size_t(gridDim.x) * blockDim.x)
    local += out[i] != pattern && out[i] != fill_value(fill_seed, i);
  if (local)
    atomicAdd(wrong, local);
}

std::vector<unsigned> random_cycle(size_t lines) {
  std::vector<unsigned> order(lines);
  std::iota(order.begin(), order.end(), 0u);
  std::mt19937_64 rng(chain_seed);
  for (size_t i = lines - 1; i > 0; --i) // Sattolo: one cycle through all
    std::swap(order[i], order[std::uniform_int_distribution<size_t>(0, i - 1)(rng)]);
  std::vector<unsigned> next(lines);
  for (size_t i = 0; i < lines; ++i)
    next[order[i]] = order[(i + 1) % lines];
  return next;
}

} // namespace

std::vector<LoadedLevel> measure_loaded_latency(ExperimentContext& ctx, CopyBuffers& buf,
                                                json& facts) {
  const int sms = ctx.device.sm_count;
  int resident = 0;
  APOD_CUDA(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, loaded_kernel, block_threads, 0));
  const int blocks_per_sm = std::min(resident, 2); // 1024 threads: 32 KiB of loads per SM
  if (blocks_per_sm < 1)
    throw std::runtime_error("littles_law: the loaded-latency kernel cannot be resident");
  const unsigned grid = unsigned(blocks_per_sm * sms); // all copy; block 0's last warp chases
  const size_t tiles = buf.bytes() / (sizeof(uint4) * stream_block * stream_loads);

  // 4x the L2 (at least 128 MiB), every step a line not touched since the chain was written.
  const size_t chain_bytes = std::max(size_t(4) * ctx.device.l2_bytes, size_t(128) << 20);
  const size_t lines = chain_bytes / (line_words * sizeof(unsigned));
  const std::vector<unsigned> next = random_cycle(lines);
  DeviceBuffer<unsigned> chain(lines * line_words), next_dev(lines);
  APOD_CUDA(
      cudaMemcpy(next_dev.get(), next.data(), lines * sizeof(unsigned), cudaMemcpyHostToDevice));
  scatter_chain_kernel<<<4 * sms, 256>>>(chain.get(), next_dev.get(), lines);
  APOD_CUDA_LAUNCH();
  DeviceBuffer<Control> control(1);
  DeviceBuffer<unsigned long long> wrong(1);
  APOD_CUDA(cudaMemset(buf.out.get(), 0xA5, buf.bytes()));

  const int steps = ctx.options.quick ? 512 : 1024;
  const int samples = ctx.options.quick ? 3 : 5;
  unsigned pos = 0;
  size_t host_pos = 0; // the host walks the same cycle
  const auto launch = [&](const LoadedLevel& level) {
    Control start{};
    start.pos = pos;
    APOD_CUDA(cudaMemcpy(control.get(), &start, sizeof start, cudaMemcpyHostToDevice));
    loaded_kernel<<<grid, block_threads>>>(
        control.get(), chain.get(), steps, reinterpret_cast<uint4*>(buf.out.get()),
        reinterpret_cast<const uint4*>(buf.in.get()), tiles, level.delay_cycles, level.background);
    APOD_CUDA_LAUNCH();
    Control end{};
    APOD_CUDA(cudaMemcpy(&end, control.get(), sizeof end, cudaMemcpyDeviceToHost));
    for (int i = 0; i < warmup_steps + steps; ++i)
      host_pos = next[host_pos];
    pos = end.pos;
    return end;
  };

  std::vector<LoadedLevel> levels(1);
  levels[0].background = false;
  for (int delay : background_delays_cycles())
    levels.push_back({true, delay});
  flush_l2(nullptr);
  for (LoadedLevel& level : levels) {
    launch(level); // warm-up: the copy's first pass, clocks settled
    for (int s = 0; s < samples; ++s) {
      const Control c = launch(level);
      const uint8_t flags = ctx.options.sampling.check_sample();
      if (c.status != 0)
        level.error = "not every background block became resident within 0.2 s";
      level.wrong += c.pos != host_pos;
      level.ns.add(double(c.ns) / steps, flags);
      level.cycles.add(double(c.cycles) / steps, flags);
      const double bytes = double(c.warp_iterations) * 32 * stream_loads * sizeof(uint4) * 2;
      level.gbs.add(c.ns > 0 ? bytes / double(c.ns) : 0, flags);
      if (c.warp_iterations > 0 && c.cycles > 0) // cycles to ns at the chase's own ratio
        level.iteration_ns.add(double(c.busy_cycles) / double(c.warp_iterations) *
                                   (double(c.ns) / double(c.cycles)),
                               flags);
    }
  }
  APOD_CUDA(cudaMemset(wrong.get(), 0, sizeof(unsigned long long)));
  copied_wrong_kernel<<<4 * sms, 512>>>(buf.out.get(), buf.out.size(), buf.seed, wrong.get());
  APOD_CUDA_LAUNCH();
  unsigned long long copied_wrong = 0;
  APOD_CUDA(cudaMemcpy(&copied_wrong, wrong.get(), sizeof copied_wrong, cudaMemcpyDeviceToHost));
  for (LoadedLevel& level : levels)
    level.wrong += level.background ? copied_wrong : 0;

  facts = {{"grid", grid},
           {"threads_per_block", block_threads},
           {"background_blocks_per_sm", blocks_per_sm},
           {"background_in_flight_bytes_per_sm",
            blocks_per_sm * stream_block * stream_loads * int(sizeof(uint4))},
           {"chase_bytes", lines * line_words * sizeof(unsigned)},
           {"chase_steps", steps},
           {"chase_warmup_steps", warmup_steps},
           {"kernel", kernel_facts(loaded_kernel, block_threads, grid)}};
  return levels;
}

} // namespace apod
