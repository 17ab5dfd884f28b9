// texture_loads' host arithmetic (model.cpp, geometry.hpp): the patterns' pixels, the per-thread
// answers the kernels are checked against, the bilinear reference and its bound, Table 4's
// addressing modes, the chase, and the plan.
#include "model.hpp"

#include "declaration.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <mutex>
#include <set>
#include <stdexcept>

using namespace apod::texture;

namespace {
const Image small{64, 1024}; // 64 x 2 tiles; 1024 = 32 x 16 x 2 rows
const Pattern all_patterns[] = {Pattern::row_stream, Pattern::column_walk, Pattern::neighbourhood};

// The kernel's sum for thread t, walked read by read as the kernel reads.
double kernel_sum(const std::vector<float>& px, Pattern q, uint32_t t, bool filtered) {
  double sum = 0;
  for (int k = 0; k < units_per_thread; ++k) {
    int x = 0, y = 0;
    unit_pixel(q, t, k, small, x, y);
    const int d = q == Pattern::neighbourhood ? 1 : 0;
    for (int dy = -d; dy <= d; ++dy)
      for (int dx = -d; dx <= d; ++dx)
        sum += filtered ? bilinear_sample(px, small, x + dx, y + dy, filter_alpha, filter_beta)
                        : px[size_t(clamp_index(y + dy, small.height)) * small.width +
                             clamp_index(x + dx, small.width)];
  }
  return sum;
}
} // namespace

TEST(TextureGeometry, EveryPixelIsTheUnitOfExactlyOneThreadAndThreadOfInvertsIt) {
  for (Pattern q : all_patterns) {
    std::set<std::pair<int, int>> seen;
    for (uint32_t t = 0; t < thread_count(small); ++t)
      for (int k = 0; k < units_per_thread; ++k) {
        int x = -1, y = -1;
        unit_pixel(q, t, k, small, x, y);
        ASSERT_GE(x, 0);
        ASSERT_LT(x, small.width);
        ASSERT_GE(y, 0);
        ASSERT_LT(y, small.height);
        EXPECT_EQ(thread_of(q, x, y, small), t) << int(q) << " " << x << " " << y;
        seen.insert({x, y});
      }
    EXPECT_EQ(seen.size(), size_t(small.width) * small.height) << int(q);
  }
}

TEST(TextureGeometry, AWarpReadsARowInTheStreamAndAColumnInTheWalk) {
  for (int k : {0, 5}) {
    int x0, y0, x, y;
    unit_pixel(Pattern::row_stream, 64, k, small, x0, y0);
    unit_pixel(Pattern::column_walk, 64, k, small, x, y);
    for (uint32_t lane = 1; lane < 32; ++lane) {
      int xr, yr, xc, yc;
      unit_pixel(Pattern::row_stream, 64 + lane, k, small, xr, yr);
      EXPECT_EQ(xr, x0 + int(lane));
      EXPECT_EQ(yr, y0);
      unit_pixel(Pattern::column_walk, 64 + lane, k, small, xc, yc);
      EXPECT_EQ(xc, x);
      EXPECT_EQ(yc, y + int(lane));
    }
  }
  // The neighbourhood's block is a 32 x 8 tile.
  int x, y;
  unit_pixel(Pattern::neighbourhood, 255, 0, small, x, y);
  EXPECT_EQ(x, 31);
  EXPECT_EQ(y, 7);
  unit_pixel(Pattern::neighbourhood, 256, 0, small, x, y);
  EXPECT_EQ(x, 32);
  EXPECT_EQ(y, 0);
}

TEST(TextureModel, RowChunksCoverEveryRowOnceInAlignedRanges) {
  std::vector<int> hits(4096, 0);
  std::mutex lock;
  for_row_chunks(4096, 32, [&](int first, int last) {
    EXPECT_EQ(first % 32, 0);
    EXPECT_EQ(last % 32, 0);
    const std::lock_guard<std::mutex> hold(lock);
    for (int y = first; y < last; ++y)
      ++hits[y];
  });
  for (int h : hits)
    ASSERT_EQ(h, 1);
  EXPECT_THROW(for_row_chunks(100, 32, [](int, int) {}), std::invalid_argument);
  EXPECT_THROW(for_row_chunks(64, 32, [](int, int) { throw std::runtime_error("worker"); }),
               std::runtime_error);
}

TEST(TextureModel, PixelsAreSmallIntegersSoSumsAreExact) {
  const auto px = make_image(7, small);
  std::set<float> distinct;
  for (float v : px) {
    ASSERT_EQ(v, std::floor(v));
    ASSERT_GE(v, 0.0f);
    ASSERT_LT(v, 1024.0f);
    distinct.insert(v);
  }
  EXPECT_GT(distinct.size(), 1000u);
  EXPECT_NE(make_image(8, small), px);
  EXPECT_THROW(make_image(7, Image{48, 1024}), std::invalid_argument);
  EXPECT_THROW(make_image(7, Image{64, 1000}), std::invalid_argument);
}

TEST(TextureModel, ExpectedSumsEqualAReadByReadWalk) {
  const auto px = make_image(11, small);
  for (Pattern q : all_patterns)
    for (bool filtered : {false, true}) {
      std::vector<double> tol;
      const auto sums = expected_sums(px, small, q, filtered, &tol);
      ASSERT_EQ(sums.size(), size_t(thread_count(small)));
      EXPECT_EQ(tol.size(), filtered ? sums.size() : 0u);
      for (uint32_t t : {0u, 1u, 33u, 255u, 256u, 1000u, thread_count(small) - 1}) {
        const double walk = kernel_sum(px, q, t, filtered);
        if (filtered)
          EXPECT_NEAR(sums[t], walk, 1e-6 * std::abs(walk));
        else
          EXPECT_EQ(sums[t], walk);
      }
    }
}

TEST(TextureModel, TheNeighbourhoodClampsAtTheEdges) {
  // A constant image: every 3 x 3 read sees the constant, at the edges too.
  std::vector<float> px(size_t(small.width) * small.height, 3.0f);
  const auto sums = expected_sums(px, small, Pattern::neighbourhood, false);
  for (double s : sums)
    ASSERT_EQ(s, 3.0 * 9 * units_per_thread);
  std::vector<double> tol;
  const auto filtered = expected_sums(px, small, Pattern::neighbourhood, true, &tol);
  for (size_t i = 0; i < filtered.size(); ++i) {
    ASSERT_DOUBLE_EQ(filtered[i], 3.0 * 9 * units_per_thread);
    ASSERT_LT(tol[i], 0.01); // flat: only the float arithmetic's share, far below one unit
  }
}

TEST(TextureModel, BilinearWeightsTheFourTexelsAndClampsOutside) {
  const Image im{32, 512};
  std::vector<float> px(size_t(im.width) * im.height, 0.0f);
  px[0] = 100, px[1] = 200, px[size_t(im.width)] = 300, px[size_t(im.width) + 1] = 500;
  double bound = 0;
  // (1-a)(1-b)100 + a(1-b)200 + (1-a)b300 + ab500 at a = 0.25, b = 0.5.
  EXPECT_DOUBLE_EQ(bilinear_sample(px, im, 0, 0, 0.25, 0.5, &bound),
                   0.375 * 100 + 0.125 * 200 + 0.375 * 300 + 0.125 * 500);
  EXPECT_NEAR(bound, (2.0 / 256 + 4.0 / 65536) * 400, 1e-3);
  // At (-1, -1) every texel clamps to (0, 0) or its row/column neighbours.
  EXPECT_DOUBLE_EQ(bilinear_sample(px, im, -1, -1, 0.25, 0.5), 100.0);
  EXPECT_DOUBLE_EQ(bilinear_sample(px, im, -1, 0, 0.5, 0.0), 100.0);
}

TEST(TextureModel, TheBoundCoversWeightsOffByUpTo1Over256AndCatchesPointSampling) {
  const auto px = make_image(5, small);
  for (int x : {-1, 0, 17, 63})
    for (int y : {-1, 0, 400, 1023}) {
      double bound = 0;
      const double exact = bilinear_sample(px, small, x, y, filter_alpha, filter_beta, &bound);
      for (double da : {-1.0 / 256, 1.0 / 256})
        for (double db : {-1.0 / 256, 1.0 / 256}) {
          const double hw = bilinear_sample(px, small, x, y, filter_alpha + da, filter_beta + db);
          EXPECT_LE(std::abs(hw - exact), bound) << x << " " << y;
        }
    }
  // Point sampling instead of filtering lies outside the bound wherever the texels differ.
  size_t caught = 0, differ = 0;
  for (int y = 0; y < 64; ++y)
    for (int x = 0; x < 63; ++x) {
      double bound = 0;
      const double f = bilinear_sample(px, small, x, y, filter_alpha, filter_beta, &bound);
      const double point = px[size_t(y) * small.width + x];
      differ += point != f;
      caught += std::abs(point - f) > bound;
    }
  EXPECT_GT(caught, differ * 95 / 100);
}

TEST(TextureModel, CountWrongIsExactWithoutToleranceAndRejectsNaN) {
  const std::vector<double> expected = {1, 2, 3};
  EXPECT_EQ(count_wrong({1, 2, 3}, expected, {}), 0u);
  EXPECT_EQ(count_wrong({1, 2.0001f, 3}, expected, {}), 1u);
  EXPECT_EQ(count_wrong({1, 2.0001f, 3}, expected, {0.01, 0.01, 0.01}), 0u);
  EXPECT_EQ(count_wrong({1, std::nanf(""), 3}, expected, {1, 1, 1}), 1u);
  EXPECT_THROW(count_wrong({1, 2}, expected, {}), std::invalid_argument);
}

TEST(TextureModel, Table4ClampAndWrapFollowTheGuide) {
  // Best Practices Guide 9.2.5.1: clamp x < 0 -> 0, x > 1 -> 1 - 1/N; wrap x -> frac(x).
  EXPECT_EQ(clamp_normalized_texel(-0.3, 16), 0);
  EXPECT_EQ(clamp_normalized_texel(1.3, 16), 15);
  EXPECT_EQ(clamp_normalized_texel(1.0, 16), 15);
  EXPECT_EQ(clamp_normalized_texel(0.5 / 16, 16), 0);
  EXPECT_EQ(clamp_normalized_texel(5.5 / 16, 16), 5);
  EXPECT_EQ(wrap_normalized_texel(1.3, 10), 3); // the guide's example: 1.3 wraps to 0.3
  EXPECT_EQ(wrap_normalized_texel(-0.5 / 16, 16), 15);
  EXPECT_EQ(wrap_normalized_texel((16 + 5.5) / 16, 16), 5);
  EXPECT_EQ(wrap_normalized_texel((-33 + 0.5) / 16, 16), 15);
  EXPECT_EQ(clamp_index(-1, 8), 0);
  EXPECT_EQ(clamp_index(8, 8), 7);
  EXPECT_EQ(clamp_index(3, 8), 3);
}

TEST(TextureModel, BytesCountEveryReadAndTheOutput) {
  const Image im{8192, 4096};
  EXPECT_EQ(thread_count(im), 2097152u);
  EXPECT_DOUBLE_EQ(bytes_loaded(im, Pattern::row_stream), 8192.0 * 4096 * 4); // the image once
  EXPECT_DOUBLE_EQ(bytes_loaded(im, Pattern::column_walk), 8192.0 * 4096 * 4);
  EXPECT_DOUBLE_EQ(bytes_loaded(im, Pattern::neighbourhood), 9 * 8192.0 * 4096 * 4);
  EXPECT_DOUBLE_EQ(bytes_written(im), 2097152.0 * 4);
  EXPECT_DOUBLE_EQ(gbs(2e9, 1.0), 2000.0);
  EXPECT_THROW(gbs(1.0, 0.0), std::invalid_argument);
}

TEST(TextureModel, TheChainIsOneCycleThroughEveryNodeOnePerLine) {
  const Chain c = make_chain(128, 3);
  ASSERT_EQ(c.words.size(), 128u * chain_node_ints);
  std::set<int> visited;
  int at = c.start;
  for (int i = 0; i < 128; ++i) {
    ASSERT_EQ(at % chain_node_ints, 0);
    visited.insert(at);
    at = walk_chain(c, at, 1);
  }
  EXPECT_EQ(at, c.start);
  EXPECT_EQ(visited.size(), 128u);
  EXPECT_EQ(walk_chain(c, c.start, 128 * 5 + 7), walk_chain(c, c.start, 7));
  EXPECT_NE(walk_chain(c, c.start, 7), walk_chain(c, c.start, 8));
  EXPECT_THROW(make_chain(1, 3), std::invalid_argument);
}

TEST(TextureDeclaration, ThePlanHas21BandwidthAnd4LatencyPoints) {
  const apod::Declaration* d = apod::find_declaration(experiment);
  ASSERT_NE(d, nullptr);
  const auto points = d->plan(apod::PlanInput{});
  ASSERT_EQ(points.size(), 25u);
  int ratios = 0, latency = 0, cached = 0;
  for (const auto& p : points) {
    ratios += p.metrics.size() == 2;
    latency += p.params[pattern.key] == dependent_chase;
    if (p.params[pattern.key] == neighbourhood) {
      EXPECT_EQ(p.metrics[0], cached_load_bandwidth.name); // on chip, not against DRAM
      ++cached;
    } else if (p.params[pattern.key] != dependent_chase) {
      EXPECT_EQ(p.metrics[0], load_bandwidth.name);
    }
  }
  EXPECT_EQ(latency, 4);
  EXPECT_EQ(cached, 7);
  EXPECT_EQ(ratios, 18 + 3); // every path but plain, per pattern and in the chase
  for (const std::string& problem : apod::declaration_problems(*d))
    ADD_FAILURE() << problem;
}
