// The provenance collect_environment records (environment.cpp); it needs no GPU.
#include "run/run.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace apod;

TEST(Environment, RecordsHowDeviceAllRanTheGpus) {
  unsetenv(device_all_variable);
  EXPECT_FALSE(collect_environment(DeviceInfo{}).device_all) << "a plain run says nothing";

  setenv(device_all_variable, device_all_value(4, false).c_str(), 1);
  const Environment env = collect_environment(DeviceInfo{});
  ASSERT_TRUE(env.device_all);
  EXPECT_EQ(env.device_all->devices, 4);
  EXPECT_EQ(env.device_all->mode, "one_at_a_time");
  EXPECT_EQ(to_json(env)["device_all"], json({{"devices", 4}, {"mode", "one_at_a_time"}}));

  setenv(device_all_variable, device_all_value(2, true).c_str(), 1);
  EXPECT_EQ(collect_environment(DeviceInfo{}).device_all->mode, "concurrent");

  setenv(device_all_variable, "garbage", 1);
  EXPECT_FALSE(collect_environment(DeviceInfo{}).device_all)
      << "an unreadable value is not recorded";
  unsetenv(device_all_variable);
}
