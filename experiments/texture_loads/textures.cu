// The addressing check of texture_loads (textures.cuh).
#include "core/cuda_memory.cuh"
#include "model.hpp"
#include "textures.cuh"

#include <vector>

namespace apod::texture {
namespace {

// Table 4's addressing modes: one point-sampled fetch per normalized coordinate pair.
__global__ void addressing_kernel(cudaTextureObject_t tex, const float2* coords, int n,
                                  float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = tex2D<float>(tex, coords[i].x, coords[i].y);
}

} // namespace

std::pair<size_t, size_t> check_addressing() {
  constexpr int w = 16, h = 8;
  std::vector<float> values(w * h);
  for (int i = 0; i < w * h; ++i)
    values[i] = float(i + 1);
  CudaArray array(w, h);
  APOD_CUDA(cudaMemcpy2DToArray(array.get(), 0, 0, values.data(), w * sizeof(float),
                                w * sizeof(float), h, cudaMemcpyHostToDevice));
  const std::vector<int> xs = {-33, -17, -9, -1, 0, 5, 15, 16, 23, 40};
  const std::vector<int> ys = {-17, -9, -1, 0, 3, 7, 8, 13, 20};
  std::vector<float2> coords;
  for (int iy : ys)
    for (int ix : xs)
      coords.push_back({(float(ix) + 0.5f) / w, (float(iy) + 0.5f) / h}); // exact: n powers of 2
  const int n = int(coords.size());
  DeviceBuffer<float2> d_coords(coords.size());
  DeviceBuffer<float> d_out(coords.size());
  APOD_CUDA(cudaMemcpy(d_coords.get(), coords.data(), d_coords.bytes(), cudaMemcpyHostToDevice));
  size_t checked = 0, wrong = 0;
  for (const bool wrap : {false, true}) {
    const TextureObject tex(
        array_resource(array.get()),
        texture_desc(wrap ? cudaAddressModeWrap : cudaAddressModeClamp, cudaFilterModePoint, true));
    APOD_CUDA(cudaMemset(d_out.get(), 0, d_out.bytes()));
    addressing_kernel<<<1, 256>>>(tex.get(), d_coords.get(), n, d_out.get());
    APOD_CUDA_LAUNCH();
    std::vector<float> got(coords.size());
    APOD_CUDA(cudaMemcpy(got.data(), d_out.get(), d_out.bytes(), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
      const double u = coords[i].x, v = coords[i].y;
      const int tx = wrap ? wrap_normalized_texel(u, w) : clamp_normalized_texel(u, w);
      const int ty = wrap ? wrap_normalized_texel(v, h) : clamp_normalized_texel(v, h);
      wrong += got[i] != values[ty * w + tx];
      ++checked;
    }
  }
  return {checked, wrong};
}

} // namespace apod::texture
