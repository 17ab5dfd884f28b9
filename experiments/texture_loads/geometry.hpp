// Where each thread of texture_loads' bandwidth kernels reads, shared by the kernels
// (texture_loads.cu) and the host's answers (model.cpp), so both walk the same pixels. The image is
// W x H floats; a launch has W x H / units_per_thread threads of block_size, each reading
// units_per_thread "units" (one pixel, or a 3 x 3 neighbourhood around one) and writing their sum.
#pragma once

#include <cstdint>

#ifdef __CUDACC__
#define APOD_TEX_HD __host__ __device__ __forceinline__
#else
#define APOD_TEX_HD inline
#endif

namespace apod::texture {

inline constexpr int block_size = 256;
/// Units per thread: enough that the output a thread writes (4 bytes) is 1/16 of what it reads
/// in the streaming patterns.
inline constexpr int units_per_thread = 16;
/// A warp's tile in the column walk: 32 rows (one per lane) by column_walk_width pixels, each
/// lane walking along its row.
inline constexpr int column_walk_width = units_per_thread;
/// A block's tile in the neighbourhood pattern: 32 x 8 threads, so a 3 x 3 neighbourhood's
/// pixels are mostly read by the same block (2-D locality in one SM's cache).
inline constexpr int tile_width = 32, tile_height = block_size / tile_width;

/// The access patterns. row_stream and column_walk read every pixel once; neighbourhood reads
/// each pixel 9 times, from 9 threads of (mostly) one block.
enum class Pattern : int { row_stream = 0, column_walk = 1, neighbourhood = 2 };

struct Image {
  int width = 0, height = 0;
};

/// Threads of a launch over `image`.
APOD_TEX_HD uint32_t thread_count(const Image& image) {
  return uint32_t(uint64_t(image.width) * image.height / units_per_thread);
}

/// Thread `t`'s unit `k`: the pixel it reads (row_stream, column_walk) or the centre of the 3 x 3
/// neighbourhood it reads (neighbourhood). Every pixel is the unit of exactly one (thread, k).
/// - row_stream: the image is cut into units_per_thread bands of H / units_per_thread rows;
///   thread t is pixel t of a band (row-major), unit k in band k. A warp reads 32 consecutive
///   pixels of a row: 128 contiguous bytes, one request.
/// - column_walk: warp w owns a tile of 32 rows x column_walk_width pixels; lane l walks row l of
///   it, unit k at column k. A warp's load reads one pixel of each of 32 rows: 32 sectors in a
///   row-major layout.
/// - neighbourhood: as row_stream, but a block's 256 threads are a 32 x 8 tile of the band.
/// Requires width a multiple of 32 and height of 32 x units_per_thread (checked by the host).
APOD_TEX_HD void unit_pixel(Pattern pattern, uint32_t t, int k, const Image& image, int& x,
                            int& y) {
  const int band_rows = image.height / units_per_thread;
  if (pattern == Pattern::column_walk) {
    const uint32_t warp = t / 32, lane = t % 32;
    const uint32_t tiles_x = uint32_t(image.width / column_walk_width);
    x = int((warp % tiles_x) * column_walk_width) + k;
    y = int((warp / tiles_x) * 32 + lane);
    return;
  }
  if (pattern == Pattern::row_stream) {
    x = int(t % uint32_t(image.width));
    y = int(t / uint32_t(image.width)) + k * band_rows;
    return;
  }
  const uint32_t block = t / block_size, in_block = t % block_size;
  const uint32_t tiles_x = uint32_t(image.width / tile_width);
  x = int((block % tiles_x) * tile_width + in_block % tile_width);
  y = int((block / tiles_x) * tile_height + in_block / tile_width) + k * band_rows;
}

/// The inverse of unit_pixel: the thread whose unit is pixel (x, y) (the host's checks walk the
/// image row by row and add each pixel's contribution to its thread).
APOD_TEX_HD uint32_t thread_of(Pattern pattern, int x, int y, const Image& image) {
  const int band_rows = image.height / units_per_thread;
  if (pattern == Pattern::column_walk) {
    const uint32_t tiles_x = uint32_t(image.width / column_walk_width);
    const uint32_t warp = uint32_t(y / 32) * tiles_x + uint32_t(x / column_walk_width);
    return warp * 32 + uint32_t(y % 32);
  }
  const uint32_t row_in_band = uint32_t(y % band_rows);
  if (pattern == Pattern::row_stream)
    return row_in_band * uint32_t(image.width) + uint32_t(x);
  const uint32_t tiles_x = uint32_t(image.width / tile_width);
  const uint32_t block = (row_in_band / tile_height) * tiles_x + uint32_t(x / tile_width);
  return block * block_size + (row_in_band % tile_height) * tile_width + uint32_t(x % tile_width);
}

/// The fractional offsets of a linearly filtered sample from its pixel's texel: alpha = 155/512,
/// beta = 307/512 (about 0.3 and 0.6). Exact in a float beside any coordinate below 2^13, and
/// not multiples of 1/256, so the hardware's 8-bit fractional weights (Programming Guide,
/// "Linear Filtering": 9-bit fixed point, 8 fractional bits) round them.
inline constexpr float filter_alpha = 155.0f / 512.0f;
inline constexpr float filter_beta = 307.0f / 512.0f;

} // namespace apod::texture
