// `apod report --format markdown`'s buyer's comparison: the same class lines and matched headline
// figures as the HTML page's #comparison section (matched.hpp), honouring --prices.
#pragma once

#include "model.hpp"
#include "options.hpp"

#include <string>

namespace apod::report {

/// "## Buyer's comparison" with one line per workload class, the compared devices (price, board
/// power from the prices file, labelled as not measured) and the matched headline figures with
/// their run spread; "" with fewer than two device models.
std::string comparison_markdown(const PageModel& page, const RenderOptions& options);

} // namespace apod::report
