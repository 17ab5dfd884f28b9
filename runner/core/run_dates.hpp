// A run's dates, checked however the run arrives: the runner writes UTC timestamps
// ("2026-11-25T02:00:00.000Z", now_iso8601), and a document or a database from elsewhere must
// hold the same. A run may not finish before it starts, and no run may come from the future:
// a date far ahead would otherwise stay "the newest run" for ever, and a nightly `apod compare`
// would never judge tonight's run again.
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace apod {

struct RunRecord;

using UtcTime = std::chrono::sys_time<std::chrono::milliseconds>;

/// How far a run's dates may lie ahead of this machine's clock: the clocks of two machines
/// disagree by seconds under NTP and by minutes without it; an hour covers both, and a date
/// beyond it is a wrong clock or a forged document.
inline constexpr std::chrono::hours clock_skew{1};

/// `text` as a UTC time if it is "YYYY-MM-DDTHH:MM:SS[.fraction]Z" naming a real calendar date
/// (years 1970 to 9999; fractions beyond milliseconds are cut), else nothing.
std::optional<UtcTime> parse_utc(const std::string& text);

/// The rules for a run's dates that hold whenever it is read (validate()): started_at, every
/// experiment's started_at and finished_at (when set) are UTC timestamps, and the run did not
/// finish more than clock_skew before it started (a clock stepped back during the run).
/// Throws InputError naming `where` and the field.
void check_run_dates(const RunRecord& r, const std::string& where);

/// The date of `r` that lies beyond `now` plus clock_skew ("started_at" or "finished_at"), or
/// nothing. Import and merge refuse such a run; compare never takes it for the newest.
std::optional<std::string> date_from_the_future(const RunRecord& r, UtcTime now);

/// The present, as the dates are compared.
UtcTime utc_now();

} // namespace apod
