#include "report.hpp"

#include "html.hpp"

#include "assets.hpp"
#include "context.hpp"
#include "format.hpp"
#include "headlines.hpp"
#include "model.hpp"
#include "pack.hpp"
#include "sections/comparison.hpp"
#include "sections/environment.hpp"
#include "sections/experiments.hpp"
#include "sections/first_screen.hpp"
#include "sections/history.hpp"
#include "sections/runs.hpp"
#include "sections/siblings.hpp"
#include "sections/summary.hpp"
#include "verdict.hpp"

#include "core/results_json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace apod::report {

namespace {

// The page may run exactly the scripts compiled into apod (by hash) and nothing else, and may
// fetch nothing: a report that reached for the network would not be self-contained, and an
// injected script would not run even if escaping failed. Vega compiles its expressions with
// Function(), hence 'unsafe-eval'; vega-embed and vega-tooltip add <style> elements.
std::string content_security_policy() {
  std::string scripts;
  for (const auto* asset : {&assets::vega_js, &assets::vega_lite_js, &assets::vega_embed_js,
                            &assets::charts_js, &assets::page_js})
    scripts += fmt::format("'{}' ", asset->csp_hash);
  return "default-src 'none'; script-src " + scripts +
         "'unsafe-eval'; style-src 'unsafe-inline'; img-src data: blob:; base-uri 'none'; "
         "form-action 'none'";
}

// A library's text deflated and base64-encoded, once per process: the same ~0.8 MB of Vega
// would otherwise be deflated again for every page.
std::string packed_library(const assets::Asset& asset) {
  static std::mutex mutex;
  static std::map<const assets::Asset*, std::string> packed;
  const std::lock_guard lock(mutex);
  auto [it, added] = packed.try_emplace(&asset);
  if (added)
    it->second = deflate_base64(asset.text);
  return it->second;
}

std::string plural(std::size_t count, const char* noun) {
  return fmt::format("{} {}{}", count, noun, count == 1 ? "" : "s");
}

// The title says what the page is about: the device models and how many runs.
std::string page_title(const PageModel& page) {
  if (page.runs.empty())
    return "apod report: no runs";
  std::string models;
  for (std::size_t i = 0; i < page.device_models.size() && i < 3; ++i)
    models += (i ? " vs " : "") + page.device_models[i];
  if (page.device_models.size() > 3)
    models += fmt::format(" and {} more", page.device_models.size() - 3);
  if (page.runs.size() == 1)
    return "apod: " + models + ", run " + page.runs.front().name;
  return "apod: " + models + ", " + plural(page.runs.size(), "run");
}

std::string scope_text(const PageModel& page) {
  std::set<std::string> devices;
  std::string first, last;
  for (const auto& run : page.runs) {
    devices.insert(run.device_key);
    if (!run.started_at.empty()) {
      first = first.empty() ? run.started_at : std::min(first, run.started_at);
      last = std::max(last, run.started_at);
    }
  }
  std::string text = plural(page.runs.size(), "run") + " on " + plural(devices.size(), "device");
  if (!first.empty())
    text += first.substr(0, 10) == last.substr(0, 10)
                ? ", " + format_date(first)
                : ", " + format_date(first) + " to " + format_date(last);
  return text;
}

mustache::data partial_of(const assets::Asset& asset) {
  const std::string text(asset.text);
  return mustache::partial([text] { return text; });
}

struct Section {
  const char* anchor; ///< the id of its element, and its entry in the table of contents
  const char* title;
  mustache::data (*build)(const PageContext&);
  const assets::Asset* partial;
};

// The page, in order. The first screen comes before the table of contents.
const std::vector<Section>& sections() {
  static const std::vector<Section> all = {
      {"glance", "At a glance", first_screen_section, &assets::first_screen_template},
      {"history", "History", history_section, &assets::history_template},
      {"comparison", "Buyer's comparison", comparison_section, &assets::comparison_template},
      {"siblings", "A node's GPUs side by side", siblings_section, &assets::siblings_template},
      {"summary", "Every headline figure", summary_section, &assets::summary_template},
      {"experiments", "Experiments", experiments_section, &assets::experiments_template},
      {"runs", "Runs and devices", runs_section, &assets::runs_template},
      {"environment", "Environment and time", environment_section, &assets::environment_template},
  };
  return all;
}

mustache::data toc_entry(const Section& section, const PageModel& page) {
  mustache::data entry;
  entry.set("anchor", section.anchor);
  entry.set("title", section.title);
  mustache::data children{mustache::data::type::list};
  if (section.build == experiments_section)
    for (const auto& experiment : page.experiments) {
      mustache::data child;
      child.set("anchor", experiment.anchor);
      child.set("title", experiment.title);
      children.push_back(child);
    }
  mustache::data nested;
  nested.set("items", children);
  entry.set("nested", children.is_empty_list() ? mustache::data(false) : nested);
  return entry;
}

// Every {{var}} through html_text, the one HTML escaper (html.hpp).
std::string render_template(std::string_view text, mustache::data& data) {
  return render_mustache(text, data);
}

// A section is rendered on its own, with the partials every section may use; the page then
// inlines the result, so that no section's data is copied into the page's tree.
std::string render_partial(const assets::Asset& partial, mustache::data data) {
  data.set("table", partial_of(assets::table_template));
  data.set("chart_figure", partial_of(assets::chart_template));
  data.set("figure_row", partial_of(assets::figure_row_template));
  return render_template(partial.text, data);
}

} // namespace

std::string render_html(const json& results, const json& catalog, const json& references,
                        const RenderOptions& options) {
  // runs_from_document refuses what import would.
  const std::vector<RunRecord> runs = runs_from_document(results);
  return render_html(runs, catalog, references, options,
                     string_at(results, "generator", "unknown"));
}

std::string render_html(const std::vector<RunRecord>& runs, const json& catalog,
                        const json& references, const RenderOptions& options,
                        const std::string& generator) {
  const PageModel page = build_page_model(runs, catalog);
  const std::vector<HeadlineSeries> headlines = headline_series(page);
  const std::vector<const json*> figures = published_figures(references);
  const BaselineVerdict verdict = baseline_verdict(page, options.baseline_run);
  ChartIds charts; // chart ids in page order
  const PageContext context{page, headlines, figures, catalog, options, verdict, charts};

  mustache::data tree;
  tree.set("csp", content_security_policy());
  tree.set("title", page_title(page));
  tree.set("generator", generator.empty() ? std::string("unknown") : generator);
  tree.set("libraries", fmt::format("{}, {}, {}", assets::vega_js.version,
                                    assets::vega_lite_js.version, assets::vega_embed_js.version));
  tree.set("scope", scope_text(page));
  tree.set("no_runs", page.runs.empty());
  tree.set("series_limit", std::to_string(series_limit));
  tree.set("first_screen", false);
  mustache::data toc{mustache::data::type::list};
  mustache::data rendered{mustache::data::type::list};
  for (const Section& section : sections()) {
    const mustache::data data = section.build(context);
    if (data.is_bool() && !data.is_true())
      continue;
    mustache::data html;
    html.set("html", render_partial(*section.partial, data));
    if (section.anchor == std::string("glance")) {
      tree.set("first_screen", html); // above the table of contents
      continue;
    }
    rendered.push_back(html);
    toc.push_back(toc_entry(section, page));
  }
  tree.set("toc", toc);
  tree.set("sections", rendered);
  tree.set("css", std::string(assets::report_css.text));
  mustache::data libraries{mustache::data::type::list};
  for (const auto* asset : {&assets::vega_js, &assets::vega_lite_js, &assets::vega_embed_js}) {
    mustache::data library;
    library.set("text", options.packed ? packed_library(*asset) : std::string(asset->text));
    libraries.push_back(library);
  }
  tree.set(options.packed ? "packed_libraries" : "libraries_inline", libraries);
  tree.set(options.packed ? "libraries_inline" : "packed_libraries", false);
  tree.set("charts_js", std::string(assets::charts_js.text));
  tree.set("page_js", std::string(assets::page_js.text));
  std::string html = render_template(assets::report_template.text, tree);
  return options.packed ? pack_page(html) : html;
}

} // namespace apod::report
