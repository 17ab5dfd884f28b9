#include "context.hpp"

#include "format.hpp"
#include "html.hpp"

namespace apod::report {

mustache::data chart_block(const json& spec, const std::string& caption, ChartIds& ids) {
  mustache::data chart;
  chart.set("chart_id", ids.next());
  chart.set("caption", caption);
  chart.set("spec_json", json_for_script(spec));
  return chart;
}

mustache::data text_list(const std::vector<std::string>& texts) {
  mustache::data list{mustache::data::type::list};
  for (const auto& text : texts)
    list.push_back(text);
  return list;
}

std::vector<const json*> published_figures(const json& references) {
  std::vector<const json*> figures;
  const auto add_document = [&](const json& document) {
    for (const auto& figure : member(document, "figures"))
      if (figure.is_object())
        figures.push_back(&figure);
  };
  if (references.is_object())
    add_document(references);
  if (references.is_array())
    for (const auto& item : references) {
      if (member(item, "figures").is_array())
        add_document(item);
      else if (item.is_object())
        figures.push_back(&item);
    }
  return figures;
}

} // namespace apod::report
