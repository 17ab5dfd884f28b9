// texture_loads' texture plumbing: owners of a cudaArray and a texture object (freed on every
// path), the resource and texture descriptions it uses, and the check of the Best Practices
// Guide's Table 4 addressing modes (clamp and wrap with normalized coordinates).
#pragma once

#include "core/cuda_check.cuh"

#include <cstddef>
#include <utility>

namespace apod::texture {

class CudaArray {
public:
  CudaArray(int width, int height) {
    const cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
    APOD_CUDA(cudaMallocArray(&array_, &desc, size_t(width), size_t(height)));
  }
  ~CudaArray() {
    if (array_)
      cudaFreeArray(array_);
  }
  CudaArray(const CudaArray&) = delete;
  CudaArray& operator=(const CudaArray&) = delete;
  cudaArray_t get() const { return array_; }

private:
  cudaArray_t array_ = nullptr;
};

class TextureObject {
public:
  TextureObject(const cudaResourceDesc& resource, const cudaTextureDesc& texture) {
    APOD_CUDA(cudaCreateTextureObject(&tex_, &resource, &texture, nullptr));
  }
  ~TextureObject() {
    if (tex_)
      cudaDestroyTextureObject(tex_);
  }
  TextureObject(const TextureObject&) = delete;
  TextureObject& operator=(const TextureObject&) = delete;
  cudaTextureObject_t get() const { return tex_; }

private:
  cudaTextureObject_t tex_ = 0;
};

template <class T> cudaResourceDesc linear_resource(const T* data, size_t count) {
  cudaResourceDesc r{};
  r.resType = cudaResourceTypeLinear;
  r.res.linear.devPtr = const_cast<T*>(data);
  r.res.linear.desc = cudaCreateChannelDesc<T>();
  r.res.linear.sizeInBytes = count * sizeof(T);
  return r;
}

inline cudaResourceDesc array_resource(cudaArray_t array) {
  cudaResourceDesc r{};
  r.resType = cudaResourceTypeArray;
  r.res.array.array = array;
  return r;
}

inline cudaTextureDesc texture_desc(cudaTextureAddressMode mode, cudaTextureFilterMode filter,
                                    bool normalized) {
  cudaTextureDesc d{};
  d.addressMode[0] = d.addressMode[1] = mode;
  d.filterMode = filter;
  d.readMode = cudaReadModeElementType;
  d.normalizedCoords = normalized ? 1 : 0;
  return d;
}

/// Table 4 on a 16 x 8 array of distinct values: point-sampled fetches at texel centres inside
/// and outside [0, 1) with clamp and with wrap, each against model.cpp's reading of the guide's
/// rules. Returns {fetches checked, fetches that returned another texel}.
std::pair<size_t, size_t> check_addressing();

} // namespace apod::texture
