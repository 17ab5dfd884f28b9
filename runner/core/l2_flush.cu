// The L2 flush used between samples: a memset of twice the L2 size evicts whatever the previous
// sample left, so each sample starts from DRAM (nvbench does the same).
#include "core/timing.cuh"

namespace apod {

namespace {
void* flush_buffer = nullptr;
size_t flush_bytes = 0;
int flush_device = -1;
int flush_value = 0;
}  // namespace

void release_l2_flush_buffer() {
  if (flush_buffer) cudaFree(flush_buffer);
  flush_buffer = nullptr;
  flush_bytes = 0;
  flush_device = -1;
}

void flush_l2(cudaStream_t stream) {
  int device = 0;
  APOD_CUDA(cudaGetDevice(&device));
  if (device != flush_device) {
    release_l2_flush_buffer();
    int l2_bytes = 0;
    APOD_CUDA(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
    flush_bytes = 2 * static_cast<size_t>(l2_bytes);
    if (flush_bytes == 0) return;
    APOD_CUDA(cudaMalloc(&flush_buffer, flush_bytes));
    flush_device = device;
  }
  // A different value each time, so no layer can skip the write as a no-op.
  flush_value = (flush_value + 1) & 0xff;
  APOD_CUDA(cudaMemsetAsync(flush_buffer, flush_value, flush_bytes, stream));
}

}  // namespace apod
