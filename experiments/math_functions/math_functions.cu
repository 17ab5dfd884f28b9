// The Best Practices Guide's instruction advice (11.1, shared/seeds/000_...) as measured pairs:
// each slow form beside its recommended form on the same inputs, for speed (results per second,
// and the speed-up sample by sample) and for accuracy (ulp against a double-precision host
// reference, beside the CUDA C++ Programming Guide's stated bounds, 17.1 Table 17 and 17.2 Table
// 21). The forms, their inputs and references are host code (forms.cpp); here are the kernels,
// the timing and the records.
#include "core/cuda_memory.cuh"
#include "core/experiment.hpp"
#include "core/kernel_facts.cuh"
#include "core/series.hpp"
#include "core/timing.cuh"
#include "declaration.hpp"
#include "eval_kernel.cuh"
#include "fast_math.hpp"
#include "forms.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace apod::mathfn {
namespace {

constexpr uint64_t seed = 0x11F0A7E5;
constexpr int probe_reps = 16;    // evaluations per thread of the launch that sizes the real ones
constexpr int max_reps = 1 << 16; // argument_step keeps the arguments within 1.6% up to here
constexpr size_t integer_threads_checked = 4096;
// Launches whose results are each read in ulp: each is one sample of the maximum error (the
// same figure every time unless the device's results vary from launch to launch).
constexpr int accuracy_launches = 3;

// The forms. 1/3.f, -1/3.f, 3.14159265f and the constants are written as the guide writes them.
#define APOD_FORM(Name, expression)                                                                \
  struct Name {                                                                                    \
    static constexpr int outputs = 1;                                                              \
    static __device__ float2 eval(float x) { return make_float2(expression, 0.0f); }               \
  };
APOD_FORM(RecipSqrt, 1.0f / sqrtf(x))
APOD_FORM(Rsqrt, rsqrtf(x))
APOD_FORM(PowThird, powf(x, 1 / 3.f))
APOD_FORM(Cbrt, cbrtf(x))
APOD_FORM(PowMinusThird, powf(x, -1 / 3.f))
APOD_FORM(Rcbrt, rcbrtf(x))
APOD_FORM(Pow2, powf(2.f, x))
APOD_FORM(Exp2, exp2f(x))
APOD_FORM(Pow10, powf(10.f, x))
APOD_FORM(Exp10, exp10f(x))
APOD_FORM(Pow3, powf(x, 3.f))
APOD_FORM(CubeMul, x* x* x)
APOD_FORM(SinPiMul, sinf(3.14159265f * x))
APOD_FORM(SinPi, sinpif(x))
APOD_FORM(Sin, sinf(x))
APOD_FORM(FastSin, __sinf(x))
APOD_FORM(Cos, cosf(x))
APOD_FORM(FastCos, __cosf(x))
APOD_FORM(Exp, expf(x))
APOD_FORM(FastExp, __expf(x))
APOD_FORM(Composite, composite_source(x))
// Unsuffixed constants make the whole polynomial double (11.1.4); the result converts back.
APOD_FORM(PolyDouble,
          float(1.0 +
                x * (1.0 + x * (0.5 + x * (0.16666666666666666 +
                                           x * (0.041666666666666664 +
                                                x * (0.008333333333333333 +
                                                     x * (0.001388888888888889 +
                                                          x * (1.984126984126984e-4 +
                                                               x * 2.48015873015873e-5)))))))))
APOD_FORM(PolyFloat,
          1.0f + x * (1.0f + x * (0.5f + x * (0.16666666666666666f +
                                              x * (0.041666666666666664f +
                                                   x * (0.008333333333333333f +
                                                        x * (0.001388888888888889f +
                                                             x * (1.984126984126984e-4f +
                                                                  x * 2.48015873015873e-5f))))))))
#undef APOD_FORM

struct SinAndCos {
  static constexpr int outputs = 2;
  static __device__ float2 eval(float x) { return make_float2(sinf(x), cosf(x)); }
};
struct SinCos {
  static constexpr int outputs = 2;
  static __device__ float2 eval(float x) {
    float s, c;
    sincosf(x, &s, &c);
    return make_float2(s, c);
  }
};

// 11.1.1: i / n and i % n by a power of two given at run time, as shift and mask, and by the
// literal the compiler converts. Unsigned, so the shift is exact for every dividend.
template <int Mode>
__global__ void __launch_bounds__(block_size)
    divide_kernel(const uint32_t* __restrict__ in, uint32_t* __restrict__ out, uint32_t n,
                  uint32_t log2_n, int reps) {
  const unsigned t = blockIdx.x * block_size + threadIdx.x;
  uint32_t x = in[t], acc = 0;
#pragma unroll 4
  for (int k = 0; k < reps; ++k) {
    uint32_t q, r;
    if constexpr (Mode == 0)
      q = x / n, r = x % n;
    else if constexpr (Mode == 1)
      q = x >> log2_n, r = x & (n - 1);
    else
      q = x / 32u, r = x % 32u;
    acc += q ^ r;
    x += dividend_step;
  }
  out[t] = acc;
}

// 11.1.2: the guide's loop, for (i = 0; i < n; i++) out[i] = in[offset + stride*i], with an
// unsigned or a signed counter; its body is read as a sum so that repeating the loop cannot be
// folded. With an unsigned i, stride*i may wrap, which keeps the compiler from strength reduction.
template <class Counter>
__global__ void __launch_bounds__(block_size)
    strided_loop_kernel(const uint32_t* __restrict__ in, uint32_t* __restrict__ out, int n,
                        int stride, int reps) {
  const int t = blockIdx.x * block_size + threadIdx.x;
  uint32_t acc = 0;
  for (int r = 0; r < reps; ++r) {
    const int offset = t ^ (r & 31);
#pragma unroll 4
    for (Counter i = 0; i < n; i++)
      acc += in[offset + stride * i];
  }
  out[t] = acc;
}

struct FloatBuffers {
  explicit FloatBuffers(size_t n) : in(n), first(n), second(n), sums(n) {}
  DeviceBuffer<float> in, first, second, sums;
};

/// A form's kernel: its attributes and how to launch it.
struct FormKernel {
  const void* kernel = nullptr;
  std::function<void(int reps, cudaStream_t)> launch;
};

template <class F> FormKernel eval_form(const FloatBuffers& b, unsigned grid) {
  return {reinterpret_cast<const void*>(&eval_kernel<F>), [&b, grid](int reps, cudaStream_t s) {
            eval_kernel<F><<<grid, block_size, 0, s>>>(b.in.get(), b.first.get(), b.second.get(),
                                                       b.sums.get(), reps);
          }};
}

FormKernel float_kernel(FormId id, const FloatBuffers& b, unsigned grid) {
  switch (id) {
  case FormId::recip_sqrt:
    return eval_form<RecipSqrt>(b, grid);
  case FormId::rsqrt:
    return eval_form<Rsqrt>(b, grid);
  case FormId::pow_third:
    return eval_form<PowThird>(b, grid);
  case FormId::cbrt:
    return eval_form<Cbrt>(b, grid);
  case FormId::pow_minus_third:
    return eval_form<PowMinusThird>(b, grid);
  case FormId::rcbrt:
    return eval_form<Rcbrt>(b, grid);
  case FormId::pow_2:
    return eval_form<Pow2>(b, grid);
  case FormId::exp2:
    return eval_form<Exp2>(b, grid);
  case FormId::pow_10:
    return eval_form<Pow10>(b, grid);
  case FormId::exp10:
    return eval_form<Exp10>(b, grid);
  case FormId::pow_3:
    return eval_form<Pow3>(b, grid);
  case FormId::cube_mul:
    return eval_form<CubeMul>(b, grid);
  case FormId::sin_pi_mul:
    return eval_form<SinPiMul>(b, grid);
  case FormId::sinpi:
    return eval_form<SinPi>(b, grid);
  case FormId::sin_cos:
    return eval_form<SinAndCos>(b, grid);
  case FormId::sincos:
    return eval_form<SinCos>(b, grid);
  case FormId::sin_small:
  case FormId::sin_large:
    return eval_form<Sin>(b, grid);
  case FormId::fast_sin_small:
  case FormId::fast_sin_large:
    return eval_form<FastSin>(b, grid);
  case FormId::cos_small:
  case FormId::cos_large:
    return eval_form<Cos>(b, grid);
  case FormId::fast_cos_small:
  case FormId::fast_cos_large:
    return eval_form<FastCos>(b, grid);
  case FormId::exp_small:
  case FormId::exp_large:
    return eval_form<Exp>(b, grid);
  case FormId::fast_exp_small:
  case FormId::fast_exp_large:
    return eval_form<FastExp>(b, grid);
  case FormId::composite:
    return eval_form<Composite>(b, grid);
  case FormId::composite_fast_math:
    return {composite_fast_math_kernel(), [&b, grid](int reps, cudaStream_t s) {
              launch_composite_fast_math(b.in.get(), b.first.get(), b.sums.get(), grid, reps, s);
            }};
  case FormId::poly_double_const:
    return eval_form<PolyDouble>(b, grid);
  case FormId::poly_float_const:
    return eval_form<PolyFloat>(b, grid);
  default:
    throw std::logic_error("math_functions: not a floating-point form");
  }
}

/// What the timing of one form gives.
struct Timed {
  Series rate; ///< results per second
  int reps = 0;
};

/// Sizes the launch so a sample takes about target_ms (one probe launch of probe_reps), then
/// times a fixed count of samples: every form of a pair the same count, so their speed-up is
/// taken sample by sample. No L2 flush: the work is arithmetic on a few MiB.
Timed time_form(const ExperimentContext& ctx, const std::function<void(int, cudaStream_t)>& launch,
                double results_per_rep) {
  const bool quick = ctx.options.quick;
  const double target_ms = quick ? 0.3 : 2.0;
  launch(probe_reps, nullptr);
  APOD_CUDA_LAUNCH();
  EventPair probe;
  probe.start(nullptr);
  launch(probe_reps, nullptr);
  probe.stop(nullptr);
  const double probe_ms = std::max(probe.elapsed_ms(), 1e-3);
  APOD_CUDA_LAUNCH();
  const int reps = std::clamp(int(probe_reps * target_ms / probe_ms) / 8 * 8, probe_reps, max_reps);
  SamplingPolicy policy = ctx.options.sampling;
  policy.warmup = 1;
  policy.min_samples = quick ? 4 : 10;
  policy.flush_l2 = false;
  const TimedSamples t = time_fixed_ms(policy, nullptr, [&](cudaStream_t s) {
    launch(reps, s);
    APOD_CUDA_LAUNCH();
  });
  const double results = results_per_rep * reps;
  return {Series(t).map([results](double ms) { return results / (ms * 1e-3); }), reps};
}

/// One form measured: its rate, its check, and what goes into every record of it.
struct Outcome {
  Timed timed;
  bool verified = false;
  std::string failure; ///< why the form failed its stated bound ("" : it did not)
  json extra = json::object();
  std::optional<Accuracy> accuracy; ///< the first launch's
  std::vector<double> max_ulp_per_launch;
};

template <class T> std::vector<T> to_host(const DeviceBuffer<T>& d, size_t n) {
  std::vector<T> h(n);
  APOD_CUDA(cudaMemcpy(h.data(), d.get(), n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

Outcome measure_float(const ExperimentContext& ctx, const Form& f, FloatBuffers& b, unsigned grid) {
  const size_t n = size_t(grid) * block_size;
  const std::vector<float> inputs = make_inputs(f, n, seed + uint64_t(f.id));
  APOD_CUDA(cudaMemcpy(b.in.get(), inputs.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  APOD_CUDA(cudaMemset(b.first.get(), 0xFF, b.first.bytes())); // NaN: a result never written
  APOD_CUDA(cudaMemset(b.second.get(), 0xFF, b.second.bytes()));
  const FormKernel k = float_kernel(f.id, b, grid);
  Outcome o;
  o.timed = time_form(ctx, k.launch, double(n) * f.outputs);
  // The last timed launch's results, then those of more launches, each read on the host (a
  // launch that gives bit for bit the same results reads the same).
  std::vector<std::vector<float>> firsts, seconds;
  o.verified = true;
  for (int l = 0; l < accuracy_launches; ++l) {
    if (l > 0) {
      APOD_CUDA(cudaMemset(b.first.get(), 0xFF, b.first.bytes()));
      APOD_CUDA(cudaMemset(b.second.get(), 0xFF, b.second.bytes()));
      k.launch(probe_reps, nullptr);
      APOD_CUDA_LAUNCH();
    }
    firsts.push_back(to_host(b.first, n));
    seconds.push_back(f.outputs == 2 ? to_host(b.second, n) : std::vector<float>{});
    const bool same = l > 0 && firsts[l] == firsts[0] && seconds[l] == seconds[0];
    const Accuracy a = same ? *o.accuracy : measure_accuracy(f, inputs, firsts[l], seconds[l]);
    if (l == 0)
      o.accuracy = a;
    o.max_ulp_per_launch.push_back(a.max_ulp);
    if (o.failure.empty())
      o.failure = accuracy_failure(f, a);
    o.verified = o.verified && o.failure.empty() && a.results == n * f.outputs;
  }
  o.extra = {{"range", {f.lo, f.hi}}, {keys::launch, kernel_facts(k.kernel, block_size, grid)}};
  return o;
}

Outcome measure_division(const ExperimentContext& ctx, const Form& f, unsigned grid) {
  const size_t n = size_t(grid) * block_size;
  DeviceBuffer<uint32_t> in(n), out(n);
  fill_device(in.get(), n, seed);
  const auto launch = [&](int reps, cudaStream_t s) {
    if (f.id == FormId::div_runtime)
      divide_kernel<0>
          <<<grid, block_size, 0, s>>>(in.get(), out.get(), divisor, divisor_log2, reps);
    else if (f.id == FormId::div_shift)
      divide_kernel<1>
          <<<grid, block_size, 0, s>>>(in.get(), out.get(), divisor, divisor_log2, reps);
    else
      divide_kernel<2>
          <<<grid, block_size, 0, s>>>(in.get(), out.get(), divisor, divisor_log2, reps);
  };
  Outcome o;
  o.timed = time_form(ctx, launch, double(n));
  const std::vector<uint32_t> got = to_host(out, n);
  const size_t step = std::max<size_t>(1, n / integer_threads_checked);
  size_t wrong = 0, checked = 0;
  for (size_t t = 0; t < n; t += step, ++checked)
    wrong += got[t] != division_sum(expected_fill<uint32_t>(seed, t), o.timed.reps);
  o.verified = wrong == 0;
  const void* kernel = f.id == FormId::div_runtime ? (const void*)&divide_kernel<0>
                       : f.id == FormId::div_shift ? (const void*)&divide_kernel<1>
                                                   : (const void*)&divide_kernel<2>;
  o.extra = {{keys::words_wrong, wrong},
             {"threads_checked", checked},
             {keys::launch, kernel_facts(kernel, block_size, grid)}};
  return o;
}

Outcome measure_strided_loop(const ExperimentContext& ctx, const Form& f, unsigned grid) {
  const size_t threads = size_t(grid) * block_size;
  const size_t words = threads * strided_loop_n; // 16 MiB at 2^18 threads: L2-resident
  DeviceBuffer<uint32_t> in(words), out(threads);
  fill_device(in.get(), words, seed);
  const int stride = int(threads);
  const auto launch = [&](int reps, cudaStream_t s) {
    if (f.id == FormId::loop_unsigned)
      strided_loop_kernel<unsigned>
          <<<grid, block_size, 0, s>>>(in.get(), out.get(), strided_loop_n, stride, reps);
    else
      strided_loop_kernel<int>
          <<<grid, block_size, 0, s>>>(in.get(), out.get(), strided_loop_n, stride, reps);
  };
  Outcome o;
  o.timed = time_form(ctx, launch, double(threads) * strided_loop_n);
  const std::vector<uint32_t> got = to_host(out, threads);
  std::vector<uint32_t> host(words);
  for (size_t i = 0; i < words; ++i)
    host[i] = expected_fill<uint32_t>(seed, i);
  const size_t step = std::max<size_t>(1, threads / integer_threads_checked);
  size_t wrong = 0, checked = 0;
  for (size_t t = 0; t < threads; t += step, ++checked)
    wrong += got[t] != strided_sum(host, uint32_t(t), uint32_t(stride), o.timed.reps);
  o.verified = wrong == 0;
  const void* kernel = f.id == FormId::loop_unsigned ? (const void*)&strided_loop_kernel<unsigned>
                                                     : (const void*)&strided_loop_kernel<int>;
  o.extra = {{keys::words_wrong, wrong},
             {"threads_checked", checked},
             {keys::launch, kernel_facts(kernel, block_size, grid)}};
  return o;
}

json params_of(const Form& f) {
  return {{pair.key, f.pair}, {form.key, f.form}, {role.key, f.role}, {family.key, f.family}};
}

std::string bound_words(const Form& f) {
  switch (f.bound.kind) {
  case BoundKind::ulp:
    return std::to_string(int(f.bound.value)) + " ulp (" + f.bound.source + ")";
  case BoundKind::expf_intrinsic:
    return "2 + floor(|1.173 x|) ulp (" + f.bound.source + ")";
  case BoundKind::absolute:
    return "absolute error 2^" + std::to_string(std::log2(f.bound.value)).substr(0, 6) +
           " on [-pi, pi] (" + f.bound.source + ")";
  case BoundKind::none:
    break;
  }
  return "none stated";
}

Measurement with_failure(Measurement m, const std::string& failure) {
  if (!failure.empty())
    m.error = failure;
  return m;
}

void run(ExperimentContext& ctx) {
  APOD_CUDA(cudaSetDevice(ctx.device.ordinal));
  // One resident wave of 256-thread blocks on an H100 (132 SMs x 8 blocks); 2^18 inputs per form.
  const unsigned grid = ctx.options.quick ? 64 : 1024;
  FloatBuffers buffers(size_t(grid) * block_size);
  std::map<std::string, Series> slow_rate; // pair -> its slow form's rate
  std::map<FormId, Series> rate_of;        // every float form measured so far
  for (const Form& f : forms()) {
    Outcome o = has_ulp(f) ? measure_float(ctx, f, buffers, grid)
                : f.family == family_integer &&
                        (f.id == FormId::loop_signed || f.id == FormId::loop_unsigned)
                    ? measure_strided_loop(ctx, f, grid)
                    : measure_division(ctx, f, grid);
    const json params = params_of(f);
    json extra = o.extra;
    extra.update({{"inputs", size_t(grid) * block_size},
                  {"reps_per_thread", o.timed.reps},
                  {"results_per_launch", double(grid) * block_size * o.timed.reps},
                  {"advice", f.pair},
                  {"stated_bound", bound_words(f)}});
    if (!o.failure.empty())
      extra["accuracy_failure"] = o.failure;
    const double median = o.timed.rate.summary().median;
    if (f.role == role_slow) {
      slow_rate[f.pair] = o.timed.rate;
    } else if (const auto s = slow_rate.find(f.pair); s != slow_rate.end()) {
      const double slow_median = s->second.summary().median;
      extra.update({{"slow_form", slow_form_of(f).form},
                    {"slow_results_per_second", slow_median},
                    {"speedup_vs_slow_form", slow_median > 0 ? median / slow_median : 0.0}});
      ctx.record(with_failure(
          make_measurement(params, speedup,
                           Series::zip(o.timed.rate, s->second,
                                       [](double fast, double slow) { return fast / slow; }),
                           o.verified, extra),
          o.failure));
    }
    rate_of[f.id] = o.timed.rate;
    if (const Form* small = small_argument_form_of(f); small && rate_of.count(small->id)) {
      const Series& small_rate = rate_of.at(small->id);
      json r = extra;
      r.update({{"small_argument_form", small->form},
                {"small_argument_results_per_second", small_rate.summary().median}});
      ctx.record(with_failure(
          make_measurement(params, reduction_slowdown,
                           Series::zip(small_rate, o.timed.rate,
                                       [](double small, double here) { return small / here; }),
                           o.verified, std::move(r)),
          o.failure));
    }
    ctx.record(with_failure(make_measurement(params, results_rate, o.timed.rate, o.verified, extra),
                            o.failure));
    if (o.accuracy) {
      const Accuracy& a = *o.accuracy;
      json acc = extra;
      acc.update({{"mean_ulp_error", a.mean_ulp},
                  {"max_ulp_error_own_arguments", a.max_ulp_own},
                  {"max_abs_error_own_arguments", a.max_abs_error_own},
                  {"worst_input", a.worst_input},
                  {"results_checked", a.results},
                  {"nan_mismatches", a.nan_mismatches},
                  {"results_over_bound", a.over_bound}});
      if (const double bound = bound_ulp_for_chart(f); bound >= 0) {
        acc[keys::limit] = bound;
        acc[keys::limit_label] = "stated bound, " + f.bound.source;
      }
      ctx.record(with_failure(make_measurement(params, max_ulp, Series(o.max_ulp_per_launch, {}),
                                               o.verified, std::move(acc)),
                              o.failure));
    }
  }
}

} // namespace

APOD_EXPERIMENT(experiment, run);

} // namespace apod::mathfn
