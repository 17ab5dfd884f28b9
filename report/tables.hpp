// Tables as data for templates/table.html.mustache: the page has several (summary, runs,
// values, published figures) and one partial draws them all.
#pragma once

#include <kainjow/mustache.hpp>

#include <optional>
#include <string>
#include <vector>

namespace apod::report {

namespace mustache = kainjow::mustache;

/// CSS classes the stylesheet knows for cells.
inline constexpr const char* numeric = "num";

struct Cell {
  Cell(std::string text_, std::string css_class_ = "", int colspan_ = 0, std::string anchor_ = "")
      : text(std::move(text_)), css_class(std::move(css_class_)), colspan(colspan_),
        anchor(std::move(anchor_)) {}

  std::string text;
  std::string css_class; ///< "num" right-aligns a figure
  int colspan = 0;       ///< 0: one column
  std::string anchor;    ///< non-empty: the text links to #anchor on this page
  /// The value a sortable table orders this cell by; without one, page.js reads the number the
  /// text starts with ("3938.5 GB/s"), and text that has none sorts as text.
  std::optional<double> sort_key;
};

/// A right-aligned figure that sorts by `value` (sizes, where "64 MiB" < "1 GiB" by value).
Cell figure_cell(std::string text, std::optional<double> value);

/// The text, or false when it is empty: kainjow treats any string, even "", as true in a section.
mustache::data text_or_false(const std::string& text);

struct Column {
  std::string title;
  std::string css_class;
};

class TableData {
public:
  explicit TableData(std::vector<Column> columns, std::string css_class = "");
  /// Lets the reader sort the table by any column (templates/page.js).
  TableData& sortable();
  void add_row(const std::vector<Cell>& cells, const std::string& row_class = "");
  std::size_t row_count() const { return row_count_; }
  /// The mustache tree for the table partial. Every key is set in every object: a missing key
  /// would be looked up in the enclosing sections and print their values.
  mustache::data data(const std::string& caption = "") const;

private:
  mustache::data columns_{mustache::data::type::list};
  mustache::data rows_{mustache::data::type::list};
  std::string css_class_;
  std::size_t row_count_ = 0;
};

} // namespace apod::report
