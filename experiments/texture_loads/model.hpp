// Host-side arithmetic of texture_loads (texture_loads.cu): the image it reads, every thread's
// expected sum for each access pattern (exact for the unfiltered paths; with its tolerance for the
// linearly filtered one), the texture addressing modes of the Best Practices Guide's Table 4, the
// chain the latency chase follows, and the byte counts of a launch.
#pragma once

#include "geometry.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace apod::texture {

/// Calls fn(first, last) on disjoint row ranges covering [0, rows), each a multiple of `align`
/// rows, on up to 16 threads; rethrows a worker's exception. Throws std::invalid_argument unless
/// rows is a positive multiple of align.
void for_row_chunks(int rows, int align, const std::function<void(int, int)>& fn);

/// The image's pixel (x, y): an integer in [0, 1024) from the seed, stored as a float, so any sum
/// of up to 2^14 of them is exact in a float in any order and the unfiltered paths are checked
/// for equality.
float pixel_value(uint64_t seed, int x, int y);
/// The whole image, row-major.
std::vector<float> make_image(uint64_t seed, const Image& image);

/// Throws std::invalid_argument unless the patterns tile `image` (width a multiple of 32, height
/// of 32 x units_per_thread, both positive).
void check_image(const Image& image);

/// Clamp-to-edge of an integer texel index (cudaAddressModeClamp with point sampling).
int clamp_index(int i, int n);

/// The Best Practices Guide 9.2.5.1, Table 4's boundary cases for a normalized coordinate u of a
/// dimension of n texels: clamp replaces u by 0 if u < 0 and by 1 - 1/n if u > 1; wrap replaces u
/// by frac(u) = u - floor(u). The texel a point-sampled fetch returns is then floor(u' x n), held
/// in [0, n).
int clamp_normalized_texel(double u, int n);
int wrap_normalized_texel(double u, int n);

/// A bilinear sample of the image at texel (x, y) plus the fractions (alpha, beta) along x and y
/// (the hardware's texture coordinate x + 0.5 + alpha: CUDA C++ Programming Guide, "Texture
/// Fetching", linear filtering), with clamp-to-edge addressing: x and y may be -1 or the size.
/// `bound` receives the most the hardware's result may differ by: its weights are 9-bit fixed
/// point with 8 fractional bits (same section), so each is off by less than 1/256, and the
/// sample moves by at most |d alpha| x (its largest difference along x) + |d beta| x (along y)
/// + |d alpha d beta| x |T00 - T10 - T01 + T11|; bounded by (2/256 + 4/65536) x (max - min of the
/// four texels), plus 2^-20 of the sample for the float arithmetic.
double bilinear_sample(const std::vector<float>& pixels, const Image& image, int x, int y,
                       double alpha, double beta, double* bound = nullptr);

/// What the kernels compute, per thread: the sum over its units (geometry.hpp) of the pixel
/// (row_stream, column_walk) or of the 3 x 3 neighbourhood's pixels, clamped at the edges.
/// `filtered`: each read is instead the bilinear sample at (alpha, beta) = (filter_alpha,
/// filter_beta) from that read's pixel; `tolerance` (if given) then receives each thread's bound:
/// the sum of its samples' bounds plus the float sum's rounding (reads x 2^-24 x the sum).
/// Unfiltered sums are exact (tolerance 0).
std::vector<double> expected_sums(const std::vector<float>& pixels, const Image& image,
                                  Pattern pattern, bool filtered,
                                  std::vector<double>* tolerance = nullptr);

/// Outputs outside their tolerance (|got - expected| > tolerance; NaN never passes); an empty
/// tolerance means exact.
size_t count_wrong(const std::vector<float>& got, const std::vector<double>& expected,
                   const std::vector<double>& tolerance);

/// Reads per thread: units_per_thread, or 9 x that for the neighbourhood.
int reads_per_thread(Pattern pattern);
/// Bytes a launch's loads return to the threads (4 per read, a filtered sample included) and
/// bytes it writes (one float per thread).
double bytes_loaded(const Image& image, Pattern pattern);
double bytes_written(const Image& image);
/// GB/s from bytes and milliseconds.
double gbs(double bytes, double ms);

/// The latency chase: a random cycle through `nodes` nodes, one per 128-byte line of an int array
/// (32 ints a node), node i's first int holding the index of the next node's first int; the
/// other ints are -1. Built from the seed (std::mt19937_64 shuffle).
struct Chain {
  std::vector<int> words; ///< nodes x 32
  int start = 0;          ///< the first node's index
};
inline constexpr int chain_node_ints = 32;
Chain make_chain(int nodes, uint64_t seed);
/// The index reached from `from` after `steps` dependent loads.
int walk_chain(const Chain& chain, int from, uint64_t steps);

} // namespace apod::texture
