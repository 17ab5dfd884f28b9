// The files the report inlines, compiled into the binary by report/embed_assets.py so that
// `apod report` works where no node_modules exist (the GPU machine).
#pragma once

#include <string_view>

namespace apod::report::assets {

struct Asset {
  std::string_view name;
  std::string_view version; ///< "vega 5.33.1" for a library, "apod" for our own files
  std::string_view text;
  std::string_view csp_hash; ///< "sha256-<base64>" for inline scripts, empty otherwise
};

// Pinned UMD builds from node_modules (versions in package.json).
extern const Asset vega_js;
extern const Asset vega_lite_js;
extern const Asset vega_embed_js;
// From templates/.
extern const Asset charts_js;       ///< draws every chart block with vegaEmbed
extern const Asset report_template; ///< report.html.mustache
extern const Asset table_template;  ///< table.html.mustache, the partial every table uses
extern const Asset chart_template;  ///< chart.html.mustache, the partial every chart uses
extern const Asset report_css;
extern const Asset page_js; ///< sortable tables, charts drawn on demand
// One partial per section of the page (templates/sections/).
extern const Asset first_screen_template;
extern const Asset history_template;
extern const Asset comparison_template;
extern const Asset siblings_template; ///< a node's GPUs side by side
extern const Asset summary_template;
extern const Asset experiments_template;
extern const Asset runs_template;
extern const Asset environment_template;
extern const Asset figure_row_template; ///< a row of the history, a partial of history_template
// From data/reference/.
extern const Asset reference_best_practices_guide;
extern const Asset reference_stich_slides;
extern const Asset reference_fasiha_gist;
extern const Asset reference_notes_on_cuda;
extern const Asset reference_pascal_tuning_guide;

} // namespace apod::report::assets
