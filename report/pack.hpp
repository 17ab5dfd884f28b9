// The page's bulk, packed: every JSON data block (chart specs, the history's data), every folded
// value table and group of history rows, and the three Vega libraries are deflated (zlib, RFC 1950)
// and base64-encoded in the page, and the page's own scripts inflate them with the browser's
// DecompressionStream
// ('deflate') when they are needed: the libraries and the chart specs at load (charts.js), a
// folded table when it is opened and the history's data when it is first read (page.js). JSON
// and table markup repeat their keys and tags on every row, so they shrink about eightfold; the
// page needs nothing it did not before (DecompressionStream is in every current browser) and
// still no network. `apod report --plain-data` writes the page unpacked, for reading its source
// or diffing two pages; the report's unit tests read the unpacked page and check that packing
// loses nothing (unpack_page(pack_page(page)) == page).
#pragma once

#include <string>
#include <string_view>

namespace apod::report {

/// The attribute that marks a packed block: `data-packed="deflate-base64"`.
inline constexpr std::string_view packed_attribute = "data-packed=\"deflate-base64\"";

/// `bytes` deflated (zlib format, best compression) and base64-encoded (RFC 4648, padded).
std::string deflate_base64(std::string_view bytes);

/// The inverse of deflate_base64; throws std::runtime_error on a damaged block.
std::string inflate_base64(std::string_view text);

/// `html` with its bulk packed:
/// - each `<script type="application/json" ...>BODY</script>` becomes
///   `<script type="application/json" data-packed="deflate-base64" ...>PACKED</script>`;
/// - the content of each `<details class="values">` (a folded table) and each
///   `<details class="figure-group">` (the history's rows of one experiment) after its
///   `</summary>` becomes
///   `<script type="text/html" data-packed="deflate-base64">PACKED</script>`, put back in place
///   by page.js when the details element is first opened (or before printing).
/// A table's content under 2 KiB is left as it is: packing it gains nothing.
std::string pack_page(const std::string& html);

/// The packed blocks of `html` inflated back into place (tests, and readers of a page's data).
std::string unpack_page(const std::string& html);

} // namespace apod::report
