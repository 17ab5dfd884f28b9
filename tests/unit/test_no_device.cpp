// The one wording of "no GPU" (issue 25): each cause the CUDA runtime reports, said plainly,
// the driver's and the runtime's CUDA versions as nvidia-smi prints them.
#include "core/device.hpp"

#include <gtest/gtest.h>

using namespace apod;
using Kind = NoDeviceCause::Kind;

TEST(NoDevice, NoDriverNamesTheMissingLibrary) {
  EXPECT_EQ(no_device_reason({.kind = Kind::no_driver, .runtime_cuda_version = 13000}),
            "no NVIDIA driver is loaded on this machine (libcuda.so.1 not found)");
}

TEST(NoDevice, AnOldDriverSaysBothVersionsAndWhatToDo) {
  EXPECT_EQ(
      no_device_reason(
          {.kind = Kind::old_driver, .driver_cuda_version = 12040, .runtime_cuda_version = 13000}),
      "the NVIDIA driver supports CUDA 12.4, older than the CUDA 13.0 runtime apod was "
      "built with: update the driver");
  EXPECT_EQ(no_device_reason({.kind = Kind::old_driver, .runtime_cuda_version = 13010}),
            "the NVIDIA driver is older than the CUDA 13.1 runtime apod was built with: update "
            "the driver");
}

TEST(NoDevice, NoGpuSaysWhetherCudaVisibleDevicesHidesThem) {
  EXPECT_EQ(no_device_reason({.kind = Kind::no_gpu}),
            "no CUDA-capable GPU is visible (the NVIDIA driver is loaded but lists none)");
  EXPECT_EQ(no_device_reason({.kind = Kind::no_gpu, .visible_devices = ""}),
            "no CUDA-capable GPU is visible (CUDA_VISIBLE_DEVICES is '')");
  EXPECT_EQ(no_device_reason({.kind = Kind::no_gpu, .visible_devices = "7"}),
            "no CUDA-capable GPU is visible (CUDA_VISIBLE_DEVICES is '7')");
}

TEST(NoDevice, AnyOtherFailureKeepsTheRuntimesWords) {
  EXPECT_EQ(no_device_reason({.kind = Kind::other,
                              .runtime_error = "all CUDA-capable devices are busy or unavailable"}),
            "no CUDA-capable GPU can be used (all CUDA-capable devices are busy or unavailable)");
  EXPECT_EQ(no_device_reason({}),
            "no CUDA-capable GPU can be used (the CUDA runtime did not say why)");
}
