#include "provenance.hpp"

#include "context.hpp"
#include "format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace apod::report {

namespace {

using Facts = std::vector<std::pair<std::string, std::string>>;

// The environment's keys (runner/environment.cpp, runner/run.cpp) in the groups a reader looks
// for; anything else, from newer or older writers, is shown under "other".
struct Group {
  const char* title;
  std::vector<std::string> keys;     ///< exact keys
  std::vector<std::string> prefixes; ///< or keys under these objects
};
const std::vector<Group>& groups() {
  static const std::vector<Group> all = {
      {"host", {"host", "os", "kernel", "machine", "cpu_model", "cpu_count", "gpu_numa_node"}, {}},
      {"build",
       {"apod_version", "apod_commit", "apod_dirty", "compiler", "build_type", "cuda_architectures",
        "cuda_toolkit_build", "extra_cuda_flags"},
       {"build."}},
      {"GPU state (NVML)", {}, {"gpu_state."}},
      {"sampling", {}, {"sampling."}},
      {"repeat", {}, {"repeat."}},
      {"plan", {"plan"}, {}},
  };
  return all;
}

std::size_t group_of(const std::string& key) {
  for (std::size_t i = 0; i < groups().size(); ++i) {
    const Group& group = groups()[i];
    if (std::find(group.keys.begin(), group.keys.end(), key) != group.keys.end())
      return i;
    for (const auto& prefix : group.prefixes)
      if (key.rfind(prefix, 0) == 0)
        return i;
  }
  return groups().size(); // other
}

// Under its group's title "gpu_state.driver_version" reads as "driver_version".
std::string key_in_group(const std::string& key, std::size_t group) {
  std::vector<std::string> prefixes = {"device."};
  if (group < groups().size())
    prefixes = groups()[group].prefixes;
  else if (group == groups().size())
    prefixes.clear(); // other: the full key says where it came from
  for (const auto& prefix : prefixes)
    if (key.rfind(prefix, 0) == 0)
      return key.substr(prefix.size());
  return key;
}

std::string scalar_text(const json& value) {
  if (value.is_null())
    return "—";
  if (value.is_boolean())
    return value.get<bool>() ? "yes" : "no";
  if (value.is_string())
    return value.get<std::string>();
  if (value.is_number_float()) {
    // 3201000.0 reads as 3201000, 63.01538461538462 as 63.0154: settings, not measurements.
    const double number = value.get<double>();
    if (std::isfinite(number) && number == std::floor(number) && std::fabs(number) < 1e15)
      return fmt::format("{:.0f}", number);
    std::string text = fmt::format("{:.4f}", number);
    text.erase(text.find_last_not_of('0') + 1);
    return text;
  }
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string list_text(const json& list) {
  const bool named = std::all_of(list.begin(), list.end(), [](const json& item) {
    return item.is_object() && item.contains("name");
  });
  const bool scalars = std::all_of(list.begin(), list.end(), [](const json& item) {
    return !item.is_object() && !item.is_array();
  });
  if (!named && !scalars)
    return list.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string text;
  for (const auto& item : list) {
    text += text.empty() ? "" : ", ";
    if (!named) {
      text += scalar_text(item);
      continue;
    }
    text += scalar_text(item.at("name"));
    if (has_number(item, "version"))
      text += " v" + scalar_text(item.at("version"));
  }
  return text.empty() ? "—" : text;
}

// The device facts that tell two runs' devices apart (the full card is under "Runs and
// devices"), under the names the results format gives them. A fact the record does not know
// (0 or "": older records lack some) is left out, as a setting the environment lacks is.
Facts device_facts(const DeviceInfo& d) {
  const auto known = [](auto value) { return value > 0 ? json(value) : json(nullptr); };
  const auto text = [](const std::string& value) {
    return value.empty() ? json(nullptr) : json(value);
  };
  const std::pair<const char*, json> facts[] = {
      {"name", text(d.name)},
      {"uuid", text(d.uuid)},
      {"pci_bus_id", text(d.pci_bus_id)},
      {"compute_capability",
       d.cc_major > 0 ? json(fmt::format("{}.{}", d.cc_major, d.cc_minor)) : json(nullptr)},
      {"driver_version", known(d.driver_version)},
      {"runtime_version", known(d.runtime_version)},
      {"pcie_generation", known(d.pcie_generation)},
      {"pcie_width", known(d.pcie_width)},
      {"pcie_current_generation", known(d.pcie_current_generation)},
      {"pcie_current_width", known(d.pcie_current_width)},
      {"memory_clock_khz", known(d.memory_clock_khz)},
      {"sm_clock_khz", known(d.sm_clock_khz)},
      {"ecc_enabled", d.ecc_enabled},
      {"theoretical_bandwidth_gbs", known(d.theoretical_bandwidth_gbs())},
      {"theoretical_pcie_gbs", or_null(d.theoretical_pcie_gbs())}};
  Facts out;
  for (const auto& [key, value] : facts) {
    if (value.is_null())
      continue;
    const bool version = std::string_view(key).ends_with("_version");
    out.emplace_back(std::string("device.") + key,
                     version ? "CUDA " + format_cuda_version(value) : scalar_text(value));
  }
  return out;
}

// The environment as the run stored it, key by key: the panels list every key, those that other
// apod versions wrote included ("other"), so they read its wire form rather than its fields.
Facts environment_facts(const RunView& run) {
  return flatten(to_json(run.run->environment));
}

Facts run_facts(const RunView& run) {
  Facts facts = environment_facts(run);
  const Facts device = device_facts(run.run->device);
  facts.insert(facts.end(), device.begin(), device.end());
  return facts;
}

TableData experiments_table(const RunView& run) {
  TableData table({{"experiment", ""},
                   {"status", ""},
                   {"wall time", numeric},
                   {"points ok", numeric},
                   {"failed", numeric},
                   {"noisy points", numeric},
                   {"dropped samples", numeric}},
                  "run-experiments");
  const auto tallies = tally(run);
  for (const auto& attempted : run.run->experiments) {
    const std::string& name = attempted.name;
    const auto it = tallies.find(name);
    const ExperimentTally t = it == tallies.end() ? ExperimentTally{} : it->second;
    const std::string& status = attempted.status;
    table.add_row({{name, "mono"},
                   {status, status == "failed" ? "status-bad" : ""},
                   {attempted.wall_s ? fmt::format("{:.2f} s", *attempted.wall_s) : "—", numeric},
                   {std::to_string(t.ok), numeric},
                   {std::to_string(t.failed), numeric},
                   {std::to_string(t.noisy), numeric},
                   {std::to_string(t.dropped), numeric}},
                  t.failed || status == "failed" ? "has-failures"
                  : t.noisy                      ? "noisy"
                                                 : "");
  }
  return table;
}

} // namespace

std::vector<const RunView*> newest_runs(const PageModel& page, std::size_t max_runs) {
  std::vector<const RunView*> runs;
  for (const auto& run : page.runs)
    runs.push_back(&run);
  std::stable_sort(runs.begin(), runs.end(), [](const RunView* a, const RunView* b) {
    return std::tie(a->started_at, a->index) < std::tie(b->started_at, b->index);
  });
  if (runs.size() > max_runs)
    runs.erase(runs.begin(), runs.end() - static_cast<std::ptrdiff_t>(max_runs));
  return runs;
}

Facts flatten(const json& value, const std::string& prefix) {
  Facts facts;
  if (!value.is_object())
    return facts;
  for (const auto& [key, item] : value.items()) {
    if (item.is_object()) {
      const Facts nested = flatten(item, prefix + key + ".");
      facts.insert(facts.end(), nested.begin(), nested.end());
    } else {
      facts.emplace_back(prefix + key, item.is_array() ? list_text(item) : scalar_text(item));
    }
  }
  return facts;
}

mustache::data environment_panels(const PageModel& page, std::size_t max_runs) {
  mustache::data panels{mustache::data::type::list};
  for (const RunView* newest : newest_runs(page, max_runs)) {
    const RunView& run = *newest;
    std::vector<Facts> grouped(groups().size() + 2); // + other, + device
    for (auto& fact : environment_facts(run))
      grouped[group_of(fact.first)].push_back(std::move(fact));
    grouped.back() = device_facts(run.run->device);
    mustache::data fact_groups{mustache::data::type::list};
    for (std::size_t i = 0; i < grouped.size(); ++i) {
      if (grouped[i].empty())
        continue;
      mustache::data facts{mustache::data::type::list};
      for (const auto& [key, text] : grouped[i]) {
        mustache::data fact;
        fact.set("key", key_in_group(key, i));
        fact.set("value", text);
        facts.push_back(fact);
      }
      mustache::data group;
      group.set("title", i < groups().size()    ? groups()[i].title
                         : i == groups().size() ? "other"
                                                : "device");
      group.set("facts", facts);
      fact_groups.push_back(group);
    }
    const std::string& device = run.run->device.name;
    std::string headline = device.empty() ? "unknown device" : device;
    if (const std::string& host = run.run->environment.host; !host.empty())
      headline += " on " + host;
    headline += ", started " + format_timestamp(json(run.run->started_at));
    mustache::data panel;
    panel.set("run", run.name);
    panel.set("headline", headline);
    panel.set("empty", fact_groups.is_empty_list());
    panel.set("groups", fact_groups);
    const TableData experiments = experiments_table(run);
    panel.set("run_experiments",
              experiments.row_count() ? experiments.data() : mustache::data(false));
    panels.push_back(panel);
  }
  return panels;
}

mustache::data environment_differences(const PageModel& page) {
  if (!page.several_runs())
    return false;
  // key -> value -> runs; keys in first-seen order
  std::vector<std::string> keys;
  std::map<std::string, std::map<std::string, std::vector<const RunView*>>> seen;
  std::vector<std::map<std::string, std::string>> per_run;
  for (const auto& run : page.runs) {
    auto& facts = per_run.emplace_back();
    for (auto& [key, text] : run_facts(run)) {
      if (!seen.count(key))
        keys.push_back(key), seen[key];
      facts.emplace(key, std::move(text));
    }
  }
  for (std::size_t r = 0; r < page.runs.size(); ++r)
    for (const auto& key : keys) {
      const auto it = per_run[r].find(key);
      seen[key][it == per_run[r].end() ? "(not recorded)" : it->second].push_back(&page.runs[r]);
    }
  // A device fact that differs only between device models (the bus width of an H200 and an A100)
  // is no surprise: it is shown only when runs of one model disagree on it.
  const auto varies_within_a_model = [&](const std::string& key) {
    std::map<std::string, std::string> value_of_model;
    for (const auto& [value, runs] : seen[key])
      for (const RunView* run : runs)
        if (auto [it, added] = value_of_model.try_emplace(run->device_model, value);
            !added && it->second != value)
          return true;
    return false;
  };
  mustache::data settings{mustache::data::type::list};
  bool device_facts_left_out = false;
  for (const auto& key : keys) {
    // Bookkeeping that differs between runs by design is not a difference to explain: a --repeat
    // batch's run index, the writing process (environment.writer) and a resume's takeover record.
    const bool bookkeeping = key == "repeat.index" || key.rfind("writer.", 0) == 0 ||
                             key == "writer" || key.rfind("resumed", 0) == 0;
    if (bookkeeping || seen[key].size() < 2)
      continue;
    if (key.rfind("device.", 0) == 0 && !varies_within_a_model(key)) {
      device_facts_left_out = true;
      continue;
    }
    mustache::data values{mustache::data::type::list};
    for (const auto& [value, runs] : seen[key]) {
      std::string names;
      for (std::size_t i = 0; i < runs.size() && i < 4; ++i)
        names += (i ? ", " : "") + runs[i]->name;
      if (runs.size() > 4)
        names += fmt::format(" and {} more", runs.size() - 4);
      mustache::data item;
      item.set("value", value);
      item.set("runs",
               fmt::format("{} run{}: {}", runs.size(), runs.size() == 1 ? "" : "s", names));
      values.push_back(item);
    }
    mustache::data setting;
    setting.set("key", key);
    setting.set("values", values);
    settings.push_back(setting);
  }
  std::string note = settings.is_empty_list()
                         ? "Every run has the same environment and device settings"
                         : "Environment and device settings whose values are not the same in "
                           "every run";
  note += " (a --repeat batch's run index, the writing process and resume records are left out";
  note += device_facts_left_out ? ", and so are device facts that differ only between device "
                                  "models: their cards are above)."
                                : ").";
  mustache::data block;
  block.set("note", note);
  block.set("any", !settings.is_empty_list());
  block.set("settings", settings);
  return block;
}

std::map<std::string, ExperimentTally> tally(const RunView& run) {
  std::map<std::string, ExperimentTally> tallies;
  for (const Measurement* measurement : run.run->measurements()) {
    ExperimentTally& t = tallies[measurement->experiment];
    (point_status(*measurement).ok() ? t.ok : t.failed)++;
    t.noisy += measurement->noisy ? 1 : 0;
    t.dropped +=
        static_cast<long long>(measurement->samples.size() - measurement->used_samples().size());
  }
  return tallies;
}

} // namespace apod::report
