#include "core/run_dates.hpp"

#include "core/errors.hpp"
#include "core/run_record.hpp"

#include <fmt/format.h>

#include <cctype>

namespace apod {

namespace {

// The digits of text[from, from + n) as a number, or -1 when one of them is not a digit.
int digits(const std::string& text, size_t from, size_t n) {
  int value = 0;
  for (size_t i = from; i < from + n; ++i) {
    if (i >= text.size() || !std::isdigit(static_cast<unsigned char>(text[i])))
      return -1;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

void check_date(const std::string& text, const std::string& where) {
  if (!parse_utc(text))
    refuse_results(where,
                   fmt::format("expected a UTC time such as \"2026-11-25T02:00:00.000Z\", "
                               "found {}",
                               json(text).dump(-1, ' ', false, json::error_handler_t::replace)));
}

} // namespace

std::optional<UtcTime> parse_utc(const std::string& text) {
  using namespace std::chrono;
  // YYYY-MM-DDTHH:MM:SS, then an optional fraction, then Z.
  if (text.size() < 20 || text.size() > 40 || text[4] != '-' || text[7] != '-' || text[10] != 'T' ||
      text[13] != ':' || text[16] != ':' || text.back() != 'Z')
    return std::nullopt;
  const int y = digits(text, 0, 4), mo = digits(text, 5, 2), d = digits(text, 8, 2),
            h = digits(text, 11, 2), mi = digits(text, 14, 2), s = digits(text, 17, 2);
  if (y < 1970 || mo < 0 || d < 0 || h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 59)
    return std::nullopt;
  int ms = 0;
  if (text.size() > 20) { // ".", at least one digit, then the Z
    if (text[19] != '.' || text.size() < 22)
      return std::nullopt;
    for (size_t i = 20; i + 1 < text.size(); ++i) {
      if (!std::isdigit(static_cast<unsigned char>(text[i])))
        return std::nullopt;
      if (i < 23)
        ms += (text[i] - '0') * (i == 20 ? 100 : i == 21 ? 10 : 1);
    }
  }
  const year_month_day date{year{y}, month{unsigned(mo)}, day{unsigned(d)}};
  if (!date.ok())
    return std::nullopt;
  return sys_days{date} + hours{h} + minutes{mi} + seconds{s} + milliseconds{ms};
}

void check_run_dates(const RunRecord& r, const std::string& where) {
  check_date(r.started_at, where + ".started_at");
  if (r.finished_at) {
    check_date(*r.finished_at, where + ".finished_at");
    // The runner's own clock may step back while it runs (NTP, a resumed suspend): a finish
    // up to clock_skew before the start is that, not a forged record, and must not make the
    // night's run unreadable.
    if (*parse_utc(*r.finished_at) + clock_skew < *parse_utc(r.started_at))
      refuse_results(where + ".finished_at",
                     fmt::format("the run finished ({}) more than an hour before it started ({})",
                                 *r.finished_at, r.started_at));
  }
  for (size_t i = 0; i < r.experiments.size(); ++i)
    check_date(r.experiments[i].started_at, fmt::format("{}.experiments[{}].started_at", where, i));
}

std::optional<std::string> date_from_the_future(const RunRecord& r, UtcTime now) {
  const auto ahead = [&](const std::string& text) {
    const auto t = parse_utc(text);
    return t && *t > now + clock_skew;
  };
  if (ahead(r.started_at))
    return "started_at";
  if (r.finished_at && ahead(*r.finished_at))
    return "finished_at";
  return std::nullopt;
}

UtcTime utc_now() {
  return std::chrono::time_point_cast<std::chrono::milliseconds>(std::chrono::system_clock::now());
}

} // namespace apod
