// apod device: the device's facts and its theoretical limits.
#include "commands.hpp"
#include "core/device.hpp"
#include "core/errors.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>

namespace apod::cli {

namespace {

void print_device(const DeviceInfo& d) {
  const auto pcie = d.theoretical_pcie_gbs();
  std::cout << fmt::format(
      "device {}: {}\n  uuid                {}\n  compute capability  {}.{}\n  SMs                 "
      "{}\n"
      "  memory clock        {:.0f} MHz\n  memory bus width    {} bits\n  L2 cache            "
      "{:.1f} MiB\n"
      "  memory              {:.1f} GiB\n  ECC                 {}\n  copy engines        {}\n"
      "  driver / runtime    {} / {}\n  PCIe                {} (gen {} x{}, now gen {} x{})\n"
      "theoretical DRAM bandwidth  {:.1f} GB/s  (memory clock x bus width / 8 x 2)\n",
      d.ordinal, d.name, d.uuid, d.cc_major, d.cc_minor, d.sm_count, d.memory_clock_khz / 1e3,
      d.memory_bus_width_bits, d.l2_bytes / 1048576.0, d.total_memory_bytes / 1073741824.0,
      d.ecc_enabled ? "on" : "off", d.copy_engines, d.driver_version, d.runtime_version,
      d.pci_bus_id, d.pcie_generation, d.pcie_width, d.pcie_current_generation,
      d.pcie_current_width, d.theoretical_bandwidth_gbs());
  if (pcie)
    std::cout << fmt::format(
        "theoretical PCIe bandwidth  {:.1f} GB/s per direction (after line encoding)\n", *pcie);
  else
    std::cout << "theoretical PCIe bandwidth  unknown (link generation not readable)\n";
  const auto h2d = d.attainable_pcie_gbs(PcieDirection::host_to_device);
  const auto d2h = d.attainable_pcie_gbs(PcieDirection::device_to_host);
  if (h2d && d2h)
    std::cout << fmt::format(
        "attainable PCIe bandwidth   {:.1f} GB/s host to device, {:.1f} GB/s device to host "
        "(protocol overhead at MPS {} B{})\n",
        *h2d, *d2h, d.pcie_max_payload_bytes, d.pcie_max_payload_assumed ? ", assumed" : "");
}

/// The device's facts; with no GPU usable, NoDevice in the one wording of "no GPU"
/// (no_device_reason): no driver, no GPU visible, or a driver too old.
DeviceInfo read_device(int ordinal) {
  if (device_count() == 0)
    throw no_device_error("apod device");
  return query_device(ordinal);
}

} // namespace

void add_device(CLI::App& app, Action& action) {
  struct Args {
    int ordinal = 0;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  auto* device = app.add_subcommand("device", "print the device's facts and theoretical limits");
  device->add_option("--device", args->ordinal, "CUDA device ordinal")->capture_default_str();
  device->add_flag("--json", args->json,
                   "print as JSON (an error too: {\"format\": \"apod-device\", \"error\": "
                   "{\"code\": 3, \"message\": ...}}, with the exit code)");
  device->callback([&action, args] {
    action = [args] {
      if (!args->json) {
        print_device(read_device(args->ordinal));
        return exit_ok;
      }
      try {
        std::cout << to_json(read_device(args->ordinal)).dump(2) << "\n";
        return exit_ok;
      } catch (const std::exception& e) {
        // A script reading stdout gets the error as JSON, with the exit code apod exits with;
        // main then prints the same message on stderr and exits with that code.
        const ExitReport report = exit_report(e);
        const json error = {{"format", "apod-device"},
                            {"error", {{"code", report.code}, {"message", report.message}}}};
        std::cout << error.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
        throw;
      }
    };
  });
}

} // namespace apod::cli
