#include "model.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <functional>
#include <mutex>
#include <numeric>
#include <random>
#include <stdexcept>
#include <thread>

namespace apod::texture {

namespace {

uint64_t mix(uint64_t z) { // SplitMix64's finaliser
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// The bound of one filtered sample (model.hpp, bilinear_sample).
double filter_bound(double range, double sample) {
  return (2.0 / 256 + 4.0 / 65536) * range + std::abs(sample) * 0x1p-20;
}

} // namespace

void for_row_chunks(int rows, int align, const std::function<void(int, int)>& fn) {
  if (rows <= 0 || align <= 0 || rows % align != 0)
    throw std::invalid_argument("for_row_chunks: rows must be a positive multiple of align");
  const int chunks = rows / align;
  const int workers = std::max(1, std::min({int(std::thread::hardware_concurrency()), 16, chunks}));
  const int per_worker = (chunks + workers - 1) / workers;
  std::vector<std::thread> threads;
  std::exception_ptr failure;
  std::mutex failure_lock;
  for (int w = 0; w < workers; ++w) {
    const int first = std::min(rows, w * per_worker * align);
    const int last = std::min(rows, first + per_worker * align);
    if (first < last)
      threads.emplace_back([&, first, last] {
        try {
          fn(first, last);
        } catch (...) {
          const std::lock_guard<std::mutex> hold(failure_lock);
          failure = std::current_exception();
        }
      });
  }
  for (auto& t : threads)
    t.join();
  if (failure)
    std::rethrow_exception(failure);
}

float pixel_value(uint64_t seed, int x, int y) {
  const uint64_t i = (uint64_t(uint32_t(y)) << 32) | uint32_t(x);
  return float(mix(seed + (i + 1) * 0x9E3779B97F4A7C15ull) & 1023u);
}

std::vector<float> make_image(uint64_t seed, const Image& image) {
  check_image(image);
  std::vector<float> pixels(size_t(image.width) * image.height);
  for_row_chunks(image.height, 32, [&](int first, int last) {
    for (int y = first; y < last; ++y)
      for (int x = 0; x < image.width; ++x)
        pixels[size_t(y) * image.width + x] = pixel_value(seed, x, y);
  });
  return pixels;
}

void check_image(const Image& image) {
  if (image.width <= 0 || image.height <= 0 || image.width % tile_width != 0 ||
      image.width % column_walk_width != 0 || image.height % (32 * units_per_thread) != 0)
    throw std::invalid_argument("texture_loads: the image must be a multiple of 32 wide and of "
                                "32 x units_per_thread high");
}

int clamp_index(int i, int n) {
  return std::clamp(i, 0, n - 1);
}

int clamp_normalized_texel(double u, int n) {
  if (n < 1)
    throw std::invalid_argument("clamp_normalized_texel: no texels");
  if (u < 0)
    u = 0;
  else if (u > 1)
    u = 1 - 1.0 / n;
  return std::min(int(std::floor(u * n)), n - 1); // u = 1 exactly: the last texel
}

int wrap_normalized_texel(double u, int n) {
  if (n < 1)
    throw std::invalid_argument("wrap_normalized_texel: no texels");
  const double f = u - std::floor(u);
  return std::min(int(std::floor(f * n)), n - 1);
}

double bilinear_sample(const std::vector<float>& pixels, const Image& image, int x, int y,
                       double alpha, double beta, double* bound) {
  const auto at = [&](int i, int j) {
    return double(
        pixels[size_t(clamp_index(j, image.height)) * image.width + clamp_index(i, image.width)]);
  };
  const double t00 = at(x, y), t10 = at(x + 1, y), t01 = at(x, y + 1), t11 = at(x + 1, y + 1);
  const double f = (1 - alpha) * (1 - beta) * t00 + alpha * (1 - beta) * t10 +
                   (1 - alpha) * beta * t01 + alpha * beta * t11;
  if (bound)
    *bound = filter_bound(std::max({t00, t10, t01, t11}) - std::min({t00, t10, t01, t11}), f);
  return f;
}

std::vector<double> expected_sums(const std::vector<float>& pixels, const Image& image,
                                  Pattern pattern, bool filtered, std::vector<double>* tolerance) {
  check_image(image);
  if (pixels.size() != size_t(image.width) * image.height)
    throw std::invalid_argument("expected_sums: the pixels do not fill the image");
  const int w = image.width, h = image.height;
  const uint32_t threads = thread_count(image);
  std::vector<double> sums(threads, 0.0), bounds(filtered ? threads : 0, 0.0);
  // A read's value at (x, y), x in [-1, w], y in [-1, h] (the neighbourhood's edge reads): row
  // `y` of them, with their bounds, in value[x + 1], bound[x + 1].
  struct Row {
    std::vector<double> value, bound;
  };
  // bilinear_sample's arithmetic inlined (same operations, same order), a row at a time: the
  // host checks every output of the 8192 x 4096 image while the GPU measures.
  const double a = filter_alpha, b = filter_beta;
  const double w00 = (1 - a) * (1 - b), w10 = a * (1 - b), w01 = (1 - a) * b, w11 = a * b;
  const auto read_row = [&](int y, Row& row) {
    row.value.resize(size_t(w) + 2);
    row.bound.resize(size_t(w) + 2);
    const float* r0 = pixels.data() + size_t(clamp_index(y, h)) * w;
    const float* r1 = pixels.data() + size_t(clamp_index(y + 1, h)) * w;
    for (int x = -1; x <= w; ++x) {
      const int xa = clamp_index(x, w);
      if (!filtered) {
        row.value[x + 1] = r0[xa];
        row.bound[x + 1] = 0;
        continue;
      }
      const int xb = clamp_index(x + 1, w);
      const double t00 = r0[xa], t10 = r0[xb], t01 = r1[xa], t11 = r1[xb];
      const double f = w00 * t00 + w10 * t10 + w01 * t01 + w11 * t11;
      const double range = std::max(std::max(t00, t10), std::max(t01, t11)) -
                           std::min(std::min(t00, t10), std::min(t01, t11));
      row.value[x + 1] = f;
      row.bound[x + 1] = filter_bound(range, f);
    }
  };
  const auto add = [&](int x, int y, double v, double b) {
    const uint32_t t = thread_of(pattern, x, y, image);
    sums[t] += v;
    if (filtered)
      bounds[t] += b;
  };
  // Workers own disjoint threads: a thread's pixels lie in rows r + k x group_rows (k < bands)
  // for one r (row_stream, neighbourhood: the bands), or in one 32-row strip (column_walk), so
  // each worker takes a range of r aligned to 32 rows and every band's rows at those r.
  const bool bands = pattern != Pattern::column_walk;
  const int group_rows = bands ? h / units_per_thread : h;
  const int band_count = bands ? units_per_thread : 1;
  for_row_chunks(group_rows, 32, [&](int first, int last) {
    for (int k = 0; k < band_count; ++k) {
      const int y0 = k * group_rows;
      if (pattern != Pattern::neighbourhood) {
        Row row;
        for (int y = y0 + first; y < y0 + last; ++y) {
          read_row(y, row);
          for (int x = 0; x < w; ++x)
            add(x, y, row.value[x + 1], row.bound[x + 1]);
        }
        continue;
      }
      // Horizontal sums of 3 reads per row, then 3 such rows: the 3 x 3 neighbourhood.
      Row row;
      const auto horizontal = [&](int y, Row& out) {
        read_row(y, row);
        out.value.resize(size_t(w));
        out.bound.resize(size_t(w));
        for (int x = 0; x < w; ++x) {
          out.value[x] = row.value[x] + row.value[x + 1] + row.value[x + 2];
          out.bound[x] = row.bound[x] + row.bound[x + 1] + row.bound[x + 2];
        }
      };
      Row above, here, below;
      horizontal(y0 + first - 1, above);
      horizontal(y0 + first, here);
      for (int y = y0 + first; y < y0 + last; ++y) {
        horizontal(y + 1, below);
        for (int x = 0; x < w; ++x)
          add(x, y, above.value[x] + here.value[x] + below.value[x],
              above.bound[x] + here.bound[x] + below.bound[x]);
        std::swap(above, here);
        std::swap(here, below);
      }
    }
  });
  if (tolerance) {
    tolerance->assign(filtered ? threads : 0, 0.0);
    const double reads = reads_per_thread(pattern);
    for (uint32_t t = 0; filtered && t < threads; ++t)
      (*tolerance)[t] = bounds[t] + reads * std::abs(sums[t]) * 0x1p-24;
  }
  return sums;
}

size_t count_wrong(const std::vector<float>& got, const std::vector<double>& expected,
                   const std::vector<double>& tolerance) {
  if (got.size() != expected.size() || (!tolerance.empty() && tolerance.size() != got.size()))
    throw std::invalid_argument("count_wrong: outputs, answers and tolerances differ in length");
  size_t wrong = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double limit = tolerance.empty() ? 0.0 : tolerance[i];
    wrong += !(std::abs(double(got[i]) - expected[i]) <= limit); // NaN never passes
  }
  return wrong;
}

int reads_per_thread(Pattern pattern) {
  return pattern == Pattern::neighbourhood ? 9 * units_per_thread : units_per_thread;
}

double bytes_loaded(const Image& image, Pattern pattern) {
  return double(thread_count(image)) * reads_per_thread(pattern) * sizeof(float);
}

double bytes_written(const Image& image) {
  return double(thread_count(image)) * sizeof(float);
}

double gbs(double bytes, double ms) {
  if (!(ms > 0))
    throw std::invalid_argument("gbs: the time must be positive");
  return bytes / (ms * 1e6);
}

Chain make_chain(int nodes, uint64_t seed) {
  if (nodes < 2)
    throw std::invalid_argument("make_chain: a chain needs two nodes at least");
  std::vector<int> order(static_cast<size_t>(nodes));
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(seed);
  std::shuffle(order.begin(), order.end(), rng);
  Chain chain;
  chain.words.assign(size_t(nodes) * chain_node_ints, -1);
  for (int k = 0; k < nodes; ++k)
    chain.words[size_t(order[k]) * chain_node_ints] =
        order[(k + 1) % nodes] * chain_node_ints; // one cycle through every node
  chain.start = order[0] * chain_node_ints;
  return chain;
}

int walk_chain(const Chain& chain, int from, uint64_t steps) {
  int at = from;
  steps %= chain.words.size() / chain_node_ints; // one cycle: a lap returns to `from`
  for (uint64_t i = 0; i < steps; ++i) {
    if (at < 0 || size_t(at) >= chain.words.size())
      throw std::out_of_range("walk_chain: left the chain");
    at = chain.words[size_t(at)];
  }
  return at;
}

} // namespace apod::texture
