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

namespace {
GpuState nvml_state() {
  GpuState s;
  s.nvml = "available";
  s.driver_version = "580.95.05";
  s.driver_branch = "580";
  s.nvlinks = {{0, true, 6, "00000000:2A:00.0"}, {1, false, std::nullopt, ""}};
  s.ecc_corrected_volatile = 3;
  s.ecc_uncorrected_volatile = 0;
  s.ecc_corrected_aggregate = 12;
  return s;
}
} // namespace

TEST(GpuStateJson, NvLinksAndEccCountsRoundTrip) {
  const GpuState s = nvml_state();
  const json j = to_json(s);
  EXPECT_EQ(j["nvlinks"], json::parse(R"([
      {"link": 0, "active": true, "version": 6, "remote_pci_bus_id": "00000000:2A:00.0"},
      {"link": 1, "active": false, "version": null, "remote_pci_bus_id": null}])"));
  EXPECT_EQ(j["ecc_corrected_volatile"], 3);
  EXPECT_EQ(j["ecc_uncorrected_volatile"], 0) << "zero is a count, not unknown";
  EXPECT_EQ(j["ecc_corrected_aggregate"], 12);
  EXPECT_TRUE(j["ecc_uncorrected_aggregate"].is_null()) << "unknown is written null";

  const GpuState back = gpu_state_from_json(j);
  EXPECT_EQ(back.nvlinks, s.nvlinks);
  EXPECT_EQ(back.ecc_corrected_volatile, 3);
  EXPECT_EQ(back.ecc_uncorrected_volatile, 0);
  EXPECT_EQ(back.ecc_corrected_aggregate, 12);
  EXPECT_FALSE(back.ecc_uncorrected_aggregate);
  EXPECT_EQ(to_json(back), j);
}

TEST(GpuStateJson, ARecordOlderThanTheLinkFactsReadsThemAsUnknownAndWritesItselfBackUnchanged) {
  const json old_state = {{"nvml", "available"},
                          {"driver_version", "570.86.15"},
                          {"driver_branch", "570"},
                          {"pcie_width_now", 16}};
  const GpuState s = gpu_state_from_json(old_state);
  EXPECT_TRUE(s.nvlinks.empty());
  EXPECT_FALSE(s.ecc_corrected_volatile);
  EXPECT_FALSE(s.ecc_uncorrected_aggregate);
  EXPECT_EQ(s.pcie_width_now, 16);

  const json environment = {{"host", "gpu-1"}, {"gpu_state", old_state}};
  EXPECT_EQ(to_json(environment_from_json(environment)).dump(), environment.dump())
      << "no nvlinks or ecc keys are added to an old record";
}

TEST(GpuStateJson, MalformedLinksAreSkippedNotThrown) {
  const json j = {{"nvml", "available"},
                  {"nvlinks", json::array({json(7), json({{"active", true}}),
                                           json({{"link", 2}, {"active", "yes"}})})},
                  {"ecc_corrected_volatile", "many"}};
  const GpuState s = gpu_state_from_json(j);
  ASSERT_EQ(s.nvlinks.size(), 1u) << "only the entry with a link index is a link";
  EXPECT_EQ(s.nvlinks[0].link, 2);
  EXPECT_FALSE(s.nvlinks[0].active) << "an unreadable state reads as not active";
  EXPECT_FALSE(s.ecc_corrected_volatile);
}
