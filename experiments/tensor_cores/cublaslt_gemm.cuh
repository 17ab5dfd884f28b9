// cuBLASLt, loaded at run time (dlopen): apod must start where the library is not installed, so
// <cublasLt.h> gives the types and the symbols are resolved from libcublasLt.so.13 (else
// libcublasLt.so). One square GEMM per precision and size, TN layout (cuBLASLt requires it for
// INT8 and FP8): D (n x n, column major) = A^T B, A and B stored k x n column major.
#pragma once

#include "tensor_model.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <memory>
#include <string>

namespace apod::tensor {

struct LtApi;

/// A prepared GEMM: its descriptors and the algorithm the heuristic chose.
struct LtGemm {
  Precision precision = Precision::fp16;
  int n = 0;
  bool ready = false;
  std::string why; ///< why it is not ready
  void* desc = nullptr;
  void* layout_a = nullptr;
  void* layout_b = nullptr;
  void* layout_d = nullptr;
  alignas(16) unsigned char algo[64] = {}; ///< cublasLtMatmulAlgo_t (64 bytes)
};

class CublasLt {
public:
  CublasLt();
  ~CublasLt();
  CublasLt(const CublasLt&) = delete;
  CublasLt& operator=(const CublasLt&) = delete;

  bool loaded() const { return handle_ != nullptr; }
  /// "libcublasLt.so.13, version 130000" or why it is not loaded.
  const std::string& status() const { return status_; }

  /// Builds the GEMM's descriptors and asks the heuristic for an algorithm within
  /// `workspace_bytes`; gemm.ready false with gemm.why when none is offered.
  void prepare(LtGemm& gemm, size_t workspace_bytes);
  /// D = A^T B on `stream`; throws std::runtime_error with the status on failure.
  void run(const LtGemm& gemm, const void* a, const void* b, void* d, void* workspace,
           size_t workspace_bytes, cudaStream_t stream);
  /// Frees the GEMM's descriptors.
  void release(LtGemm& gemm);

private:
  std::unique_ptr<LtApi> api_;
  void* lib_ = nullptr;
  void* handle_ = nullptr; ///< cublasLtHandle_t
  std::string status_;
};

} // namespace apod::tensor
