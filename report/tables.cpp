#include "tables.hpp"

#include <fmt/format.h>

#include <cmath>

namespace apod::report {

mustache::data text_or_false(const std::string& text) {
  // kainjow treats any string as true in a section, even ""; only `false` hides one.
  return text.empty() ? mustache::data(false) : mustache::data(text);
}

TableData::TableData(std::vector<Column> columns, std::string css_class)
    : css_class_(std::move(css_class)) {
  for (const auto& column : columns) {
    mustache::data header;
    header.set("text", column.title);
    header.set("class", column.css_class);
    columns_.push_back(header);
  }
}

Cell figure_cell(std::string text, std::optional<double> value) {
  Cell cell(std::move(text), numeric);
  cell.sort_key = value;
  return cell;
}

TableData& TableData::sortable() {
  css_class_ += css_class_.empty() ? "sortable" : " sortable";
  return *this;
}

void TableData::add_row(const std::vector<Cell>& cells, const std::string& row_class) {
  mustache::data row_cells{mustache::data::type::list};
  for (const auto& cell : cells) {
    mustache::data item;
    item.set("text", cell.text);
    item.set("class", cell.css_class);
    item.set("colspan", cell.colspan > 1 ? mustache::data(std::to_string(cell.colspan))
                                         : mustache::data(false));
    item.set("anchor", text_or_false(cell.anchor));
    item.set("sort_key", cell.sort_key && std::isfinite(*cell.sort_key)
                             ? mustache::data(fmt::format("{}", *cell.sort_key))
                             : mustache::data(false));
    row_cells.push_back(item);
  }
  mustache::data row;
  row.set("class", row_class);
  row.set("cells", row_cells);
  rows_.push_back(row);
  ++row_count_;
}

mustache::data TableData::data(const std::string& caption) const {
  mustache::data table;
  table.set("table_class", css_class_);
  table.set("caption", text_or_false(caption));
  table.set("headers", columns_);
  table.set("rows", rows_);
  return table;
}

} // namespace apod::report
