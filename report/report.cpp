#include "report.hpp"

#include "assets.hpp"
#include "comparison.hpp"
#include "format.hpp"
#include "headlines.hpp"
#include "model.hpp"
#include "provenance.hpp"
#include "sections.hpp"
#include "summary.hpp"
#include "tables.hpp"
#include "telemetry.hpp"
#include "trend.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace apod::report {

namespace {

// The page may run exactly the scripts compiled into apod (by hash) and nothing else, and may
// fetch nothing: a report that reached for the network would not be self-contained, and an
// injected script would not run even if escaping failed. Vega compiles its expressions with
// Function(), hence 'unsafe-eval'; vega-embed and vega-tooltip add <style> elements.
std::string content_security_policy() {
  std::string scripts;
  for (const auto* asset :
       {&assets::vega_js, &assets::vega_lite_js, &assets::vega_embed_js, &assets::charts_js})
    scripts += fmt::format("'{}' ", asset->csp_hash);
  return "default-src 'none'; script-src " + scripts +
         "'unsafe-eval'; style-src 'unsafe-inline'; img-src data: blob:; base-uri 'none'; "
         "form-action 'none'";
}

std::string status_class(const std::string& status) {
  if (status == "complete")
    return "status-ok";
  if (status == "failed")
    return "status-bad";
  return "status-warn"; // running, partial, interrupted, or something newer
}

std::string plural(std::size_t count, const char* noun) {
  return fmt::format("{} {}{}", count, noun, count == 1 ? "" : "s");
}

TableData runs_table(const PageModel& page) {
  TableData table({{"run", ""},
                   {"id", ""},
                   {"status", ""},
                   {"started", ""},
                   {"finished", ""},
                   {"device", ""},
                   {"apod", ""}},
                  "runs");
  for (const auto& view : page.runs) {
    const RunRecord& run = *view.run;
    table.add_row({{view.name},
                   {view.id, "mono"},
                   {run.status, status_class(run.status)},
                   {format_timestamp(json(run.started_at)), "time"},
                   {format_timestamp(run.finished_at ? json(*run.finished_at) : json()), "time"},
                   {view.device_model},
                   {run.apod_version}});
  }
  return table;
}

std::string number_fact(const json& device, const char* key, const char* format_text) {
  return has_number(device, key)
             ? fmt::format(fmt::runtime(format_text), device.at(key).get<double>())
             : "—";
}

std::string pcie_link(const json& device) {
  const auto link = [&](const char* generation, const char* width) -> std::string {
    if (!has_number(device, generation) || !has_number(device, width))
      return "";
    return fmt::format("Gen {} x{}", device.at(generation).get<int>(), device.at(width).get<int>());
  };
  const std::string maximum = link("pcie_generation", "pcie_width");
  const std::string current = link("pcie_current_generation", "pcie_current_width");
  if (maximum.empty())
    return current.empty() ? "—" : current;
  // A link trained below its maximum caps every transfer; say so next to the limit.
  if (!current.empty() && current != maximum)
    return maximum + " (running at " + current + ")";
  return maximum;
}

mustache::data device_card(const json& device, const std::vector<std::string>& run_names) {
  mustache::data facts{mustache::data::type::list};
  auto fact = [&](const std::string& label, const std::string& value) {
    mustache::data item;
    item.set("label", label);
    item.set("value", value);
    facts.push_back(item);
  };
  const auto bytes = [&](const char* key) {
    return has_number(device, key) ? format_bytes(device.at(key).get<double>()) : "—";
  };
  const json& ecc = member(device, "ecc_enabled");
  fact("theoretical DRAM bandwidth",
       number_fact(device, "theoretical_bandwidth_gbs", "{:.1f} GB/s"));
  fact("theoretical PCIe bandwidth",
       has_number(device, "theoretical_pcie_gbs")
           ? number_fact(device, "theoretical_pcie_gbs", "{:.1f} GB/s per direction")
           : "unknown");
  fact("compute capability", string_at(device, "compute_capability", "—"));
  fact("multiprocessors", number_fact(device, "sm_count", "{:.0f} SMs"));
  fact("memory", bytes("total_memory_bytes"));
  fact("memory clock",
       has_number(device, "memory_clock_khz")
           ? fmt::format("{:.0f} MHz", device.at("memory_clock_khz").get<double>() / 1000)
           : "—");
  fact("memory bus", number_fact(device, "memory_bus_width_bits", "{:.0f} bits"));
  fact("L2 cache", bytes("l2_bytes"));
  fact("ECC", ecc.is_boolean() ? (ecc.get<bool>() ? "on" : "off") : "—");
  fact("copy engines", number_fact(device, "copy_engines", "{:.0f}"));
  fact("SM clock", has_number(device, "sm_clock_khz")
                       ? fmt::format("{:.0f} MHz", device.at("sm_clock_khz").get<double>() / 1000)
                       : "—");
  fact("PCIe link", pcie_link(device));
  fact("PCI bus id", string_at(device, "pci_bus_id", "—"));
  fact("driver supports", "CUDA " + format_cuda_version(member(device, "driver_version")));
  fact("runtime", "CUDA " + format_cuda_version(member(device, "runtime_version")));
  fact("uuid", string_at(device, "uuid", "—"));
  std::string runs;
  for (std::size_t i = 0; i < run_names.size() && i < 8; ++i)
    runs += (i ? ", " : "") + run_names[i];
  if (run_names.size() > 8)
    runs += fmt::format(" and {} more", run_names.size() - 8);
  fact(run_names.size() == 1 ? "run" : "runs", runs);

  mustache::data card;
  card.set("name", string_at(device, "name", "unknown device"));
  card.set("facts", facts);
  return card;
}

struct DeviceGroup {
  const RunView* first_run; ///< its device facts are shown
  std::vector<std::string> run_names;
};

// Runs on one GPU (same uuid) share a card, however many runs there are.
std::vector<DeviceGroup> devices_of(const PageModel& page) {
  std::vector<DeviceGroup> devices;
  for (const auto& run : page.runs) {
    auto it = std::find_if(devices.begin(), devices.end(), [&](const DeviceGroup& d) {
      return d.first_run->device_key == run.device_key;
    });
    if (it == devices.end())
      it = devices.insert(devices.end(), DeviceGroup{&run, {}});
    it->run_names.push_back(run.name);
  }
  return devices;
}

mustache::data device_cards(const std::vector<DeviceGroup>& devices) {
  mustache::data cards{mustache::data::type::list};
  for (const auto& device : devices)
    cards.push_back(device_card(device.first_run->run->device, device.run_names));
  return cards;
}

std::string page_title(const PageModel& page) {
  if (page.runs.size() == 1)
    return "apod report: " + page.runs.front().name;
  return "apod report: " + plural(page.runs.size(), "run");
}

mustache::data partial_of(const assets::Asset& asset) {
  const std::string text(asset.text);
  return mustache::partial([text] { return text; });
}

} // namespace

std::string render_html(const json& results, const json& catalog, const json& references,
                        const RenderOptions& options) {
  const PageModel page = build_page_model(results, catalog);  // refuses what import would
  const std::vector<HeadlineSeries> headlines = headline_series(page);
  const std::vector<const json*> figures = published_figures(references);
  int next_chart = 1; // chart ids in page order

  mustache::data tree;
  tree.set("csp", content_security_policy());
  tree.set("title", page_title(page));
  tree.set("generator", string_at(results, "generator", "unknown"));
  tree.set("libraries", fmt::format("{}, {}, {}", assets::vega_js.version,
                                    assets::vega_lite_js.version, assets::vega_embed_js.version));
  const std::vector<DeviceGroup> devices = devices_of(page);
  tree.set("scope", plural(page.runs.size(), "run") + " on " + plural(devices.size(), "device"));
  tree.set("no_runs", page.runs.empty());
  tree.set("summary", summary_table(page, headlines).data());
  mustache::data notes{mustache::data::type::list};
  for (const auto& note : summary_notes(page, headlines))
    notes.push_back(note);
  tree.set("summary_notes", notes);
  tree.set("history", history_section(page, headlines, next_chart));
  tree.set("comparison",
           comparison_section(page, headlines, figures, catalog, options.prices, next_chart));
  tree.set("runs", runs_table(page).data());
  tree.set("devices", device_cards(devices));
  tree.set("differences", environment_differences(page));
  tree.set("time", time_chart(page, next_chart));
  tree.set("telemetry", telemetry_block(page, next_chart));
  tree.set("environments", environment_panels(page));
  mustache::data sections{mustache::data::type::list};
  for (const auto& experiment : page.experiments)
    sections.push_back(experiment_section(page, experiment, figures, next_chart));
  tree.set("experiments", sections);
  tree.set("table", partial_of(assets::table_template));
  tree.set("chart_figure", partial_of(assets::chart_template));
  tree.set("css", std::string(assets::report_css.text));
  tree.set("vega_js", std::string(assets::vega_js.text));
  tree.set("vega_lite_js", std::string(assets::vega_lite_js.text));
  tree.set("vega_embed_js", std::string(assets::vega_embed_js.text));
  tree.set("charts_js", std::string(assets::charts_js.text));

  mustache::mustache page_template{std::string(assets::report_template.text)};
  if (!page_template.is_valid())
    throw std::runtime_error("report template: " + page_template.error_message());
  std::string html = page_template.render(tree);
  if (!page_template.is_valid())
    throw std::runtime_error("report template: " + page_template.error_message());
  return html;
}

} // namespace apod::report
