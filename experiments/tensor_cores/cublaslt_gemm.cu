// cuBLASLt loaded at run time; see cublaslt_gemm.cuh. Data types per precision (cuBLAS
// documentation, cublasLtMatmul, "Datatypes supported"): FP16 and BF16 inputs with FP32 output
// and CUBLAS_COMPUTE_32F; FP8 e4m3 inputs with FP32 output (TN only, scales left at their
// default of 1); TF32 as FP32 matrices with CUBLAS_COMPUTE_32F_FAST_TF32; INT8 inputs with INT32
// output and CUBLAS_COMPUTE_32I (TN only); FP64 with CUBLAS_COMPUTE_64F.
#include "cublaslt_gemm.cuh"

#include <cublasLt.h>
#include <dlfcn.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace apod::tensor {

struct LtApi {
  decltype(&cublasLtCreate) create = nullptr;
  decltype(&cublasLtDestroy) destroy = nullptr;
  decltype(&cublasLtGetVersion) version = nullptr;
  decltype(&cublasLtMatmulDescCreate) desc_create = nullptr;
  decltype(&cublasLtMatmulDescDestroy) desc_destroy = nullptr;
  decltype(&cublasLtMatmulDescSetAttribute) desc_set = nullptr;
  decltype(&cublasLtMatrixLayoutCreate) layout_create = nullptr;
  decltype(&cublasLtMatrixLayoutDestroy) layout_destroy = nullptr;
  decltype(&cublasLtMatmulPreferenceCreate) pref_create = nullptr;
  decltype(&cublasLtMatmulPreferenceDestroy) pref_destroy = nullptr;
  decltype(&cublasLtMatmulPreferenceSetAttribute) pref_set = nullptr;
  decltype(&cublasLtMatmulAlgoGetHeuristic) heuristic = nullptr;
  decltype(&cublasLtMatmul) matmul = nullptr;
};

namespace {

template <class F> bool resolve(void* lib, F& f, const char* name) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  return f != nullptr;
}

struct Types {
  cudaDataType_t input, output, scale;
  cublasComputeType_t compute;
};

Types types_of(Precision p) {
  switch (p) {
  case Precision::fp16:
    return {CUDA_R_16F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F};
  case Precision::bf16:
    return {CUDA_R_16BF, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F};
  case Precision::fp8_e4m3:
    return {CUDA_R_8F_E4M3, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F};
  case Precision::tf32:
    return {CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32};
  case Precision::int8:
    return {CUDA_R_8I, CUDA_R_32I, CUDA_R_32I, CUBLAS_COMPUTE_32I};
  case Precision::fp64:
    return {CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F};
  }
  throw std::logic_error("types_of: unknown precision");
}

std::string status_text(const char* what, cublasStatus_t s) {
  return std::string(what) + " returned cuBLAS status " + std::to_string(int(s));
}

} // namespace

CublasLt::CublasLt() : api_(std::make_unique<LtApi>()) {
  const char* name = "libcublasLt.so.13";
  lib_ = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!lib_) {
    name = "libcublasLt.so";
    lib_ = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  }
  if (!lib_) {
    status_ = "not loaded: neither libcublasLt.so.13 nor libcublasLt.so was found";
    return;
  }
  LtApi& a = *api_;
  const bool all = resolve(lib_, a.create, "cublasLtCreate") &&
                   resolve(lib_, a.destroy, "cublasLtDestroy") &&
                   resolve(lib_, a.version, "cublasLtGetVersion") &&
                   resolve(lib_, a.desc_create, "cublasLtMatmulDescCreate") &&
                   resolve(lib_, a.desc_destroy, "cublasLtMatmulDescDestroy") &&
                   resolve(lib_, a.desc_set, "cublasLtMatmulDescSetAttribute") &&
                   resolve(lib_, a.layout_create, "cublasLtMatrixLayoutCreate") &&
                   resolve(lib_, a.layout_destroy, "cublasLtMatrixLayoutDestroy") &&
                   resolve(lib_, a.pref_create, "cublasLtMatmulPreferenceCreate") &&
                   resolve(lib_, a.pref_destroy, "cublasLtMatmulPreferenceDestroy") &&
                   resolve(lib_, a.pref_set, "cublasLtMatmulPreferenceSetAttribute") &&
                   resolve(lib_, a.heuristic, "cublasLtMatmulAlgoGetHeuristic") &&
                   resolve(lib_, a.matmul, "cublasLtMatmul");
  if (!all) {
    status_ = std::string("not loaded: ") + name + " lacks a cublasLt symbol apod uses";
    dlclose(lib_), lib_ = nullptr;
    return;
  }
  cublasLtHandle_t h = nullptr;
  const cublasStatus_t s = a.create(&h);
  if (s != CUBLAS_STATUS_SUCCESS) {
    status_ = std::string("not loaded: ") + status_text("cublasLtCreate", s);
    return;
  }
  handle_ = h;
  status_ = std::string(name) + ", version " + std::to_string(a.version());
}

CublasLt::~CublasLt() {
  if (handle_)
    api_->destroy(static_cast<cublasLtHandle_t>(handle_));
  // The library stays loaded: dlclose of a CUDA library at exit can race its own teardown.
}

void CublasLt::prepare(LtGemm& g, size_t workspace_bytes) {
  g.ready = false;
  if (!handle_) {
    g.why = status_;
    return;
  }
  const LtApi& a = *api_;
  const Types t = types_of(g.precision);
  const uint64_t n = uint64_t(g.n);
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, ld = nullptr;
  cublasStatus_t s = a.desc_create(&desc, t.compute, t.scale);
  if (s != CUBLAS_STATUS_SUCCESS) {
    g.why = status_text("cublasLtMatmulDescCreate", s);
    return;
  }
  g.desc = desc;
  const cublasOperation_t transpose = CUBLAS_OP_T, none = CUBLAS_OP_N;
  a.desc_set(desc, CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof transpose);
  a.desc_set(desc, CUBLASLT_MATMUL_DESC_TRANSB, &none, sizeof none);
  if ((s = a.layout_create(&la, t.input, n, n, int64_t(n))) != CUBLAS_STATUS_SUCCESS ||
      (s = a.layout_create(&lb, t.input, n, n, int64_t(n))) != CUBLAS_STATUS_SUCCESS ||
      (s = a.layout_create(&ld, t.output, n, n, int64_t(n))) != CUBLAS_STATUS_SUCCESS) {
    g.layout_a = la, g.layout_b = lb, g.layout_d = ld;
    g.why = status_text("cublasLtMatrixLayoutCreate", s);
    return;
  }
  g.layout_a = la, g.layout_b = lb, g.layout_d = ld;
  cublasLtMatmulPreference_t pref = nullptr;
  if ((s = a.pref_create(&pref)) != CUBLAS_STATUS_SUCCESS) {
    g.why = status_text("cublasLtMatmulPreferenceCreate", s);
    return;
  }
  a.pref_set(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes,
             sizeof workspace_bytes);
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  s = a.heuristic(static_cast<cublasLtHandle_t>(handle_), desc, la, lb, ld, ld, pref, 1, &result,
                  &found);
  a.pref_destroy(pref);
  if (s != CUBLAS_STATUS_SUCCESS || found < 1) {
    g.why = found < 1 && s == CUBLAS_STATUS_SUCCESS
                ? std::string("the heuristic offered no algorithm")
                : status_text("cublasLtMatmulAlgoGetHeuristic", s);
    return;
  }
  static_assert(sizeof result.algo == sizeof g.algo);
  std::memcpy(g.algo, &result.algo, sizeof g.algo);
  g.ready = true;
}

void CublasLt::run(const LtGemm& g, const void* a, const void* b, void* d, void* workspace,
                   size_t workspace_bytes, cudaStream_t stream) {
  const float one_f = 1, zero_f = 0;
  const int32_t one_i = 1, zero_i = 0;
  const double one_d = 1, zero_d = 0;
  const void* alpha = &one_f;
  const void* beta = &zero_f;
  if (g.precision == Precision::int8)
    alpha = &one_i, beta = &zero_i;
  if (g.precision == Precision::fp64)
    alpha = &one_d, beta = &zero_d;
  cublasLtMatmulAlgo_t algo;
  std::memcpy(&algo, g.algo, sizeof algo);
  const auto layout = [](void* l) { return static_cast<cublasLtMatrixLayout_t>(l); };
  const cublasStatus_t s = api_->matmul(
      static_cast<cublasLtHandle_t>(handle_), static_cast<cublasLtMatmulDesc_t>(g.desc), alpha, a,
      layout(g.layout_a), b, layout(g.layout_b), beta, d, layout(g.layout_d), d, layout(g.layout_d),
      &algo, workspace, workspace_bytes, stream);
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(status_text("cublasLtMatmul", s));
}

void CublasLt::release(LtGemm& g) {
  if (!lib_)
    return;
  if (g.layout_a)
    api_->layout_destroy(static_cast<cublasLtMatrixLayout_t>(g.layout_a));
  if (g.layout_b)
    api_->layout_destroy(static_cast<cublasLtMatrixLayout_t>(g.layout_b));
  if (g.layout_d)
    api_->layout_destroy(static_cast<cublasLtMatrixLayout_t>(g.layout_d));
  if (g.desc)
    api_->desc_destroy(static_cast<cublasLtMatmulDesc_t>(g.desc));
  g.layout_a = g.layout_b = g.layout_d = g.desc = nullptr;
  g.ready = false;
}

} // namespace apod::tensor
