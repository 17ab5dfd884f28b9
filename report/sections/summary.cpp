// Every headline figure in one compact table, for the reader who wants all of them at once
// (BabelStream's summary: the figure, % of its limit and of the achievable peak, and with
// several runs their spread). The table itself is built by report/summary_table.cpp.
#include "sections/summary.hpp"

#include "summary_table.hpp"

namespace apod::report {

mustache::data summary_section(const PageContext& context) {
  if (context.page.runs.empty())
    return false;
  mustache::data section;
  section.set("notes", text_list(summary_notes(context.page, context.headlines)));
  section.set("summary_table", summary_table(context.page, context.headlines).sortable().data());
  return section;
}

} // namespace apod::report
