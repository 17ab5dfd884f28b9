// Temporary files that neither a signal nor a long name can turn into litter (issue 19). apod
// builds every replaced output and every new database under a temporary name beside its target
// and renames (or links) it into place; these helpers give that name a length the file system
// accepts, and remove the file, with SQLite's -wal/-shm/-journal beside it, when SIGINT, SIGTERM,
// SIGHUP, SIGQUIT, SIGPIPE or SIGALRM ends the process before it was placed.
#pragma once

#include <string>
#include <string_view>

namespace apod {

/// The temporary name beside `target`: "." + its file name + `suffix` (e.g. ".XXXXXX" for
/// mkstemp), in the same folder. A long file name is cut, at a UTF-8 character boundary, so that
/// the whole name, plus `reserved` bytes that another program appends to it (SQLite's
/// "-journal"), fits NAME_MAX (255) bytes: every name legal for the target has a legal
/// temporary name.
std::string temp_name_beside(const std::string& target, std::string_view suffix,
                             std::size_t reserved = 0);

/// The longest name SQLite's "-journal" leaves a database within NAME_MAX: 247 bytes.
constexpr std::size_t max_database_name_bytes = 255 - 8;

/// Installs the handler that removes every registered temporary file (TempRegistration) and
/// then lets the signal end the process as it would have (its default action, re-raised): the
/// exit status still says which signal it was. Signals ignored on entry (nohup's SIGHUP, a
/// background job's SIGINT) stay ignored. Called once, by main().
void install_temp_file_cleanup();

/// One temporary file known to the signal handler while this object lives. Not copyable.
class TempRegistration {
public:
  TempRegistration() = default;
  ~TempRegistration() { release(); }
  TempRegistration(const TempRegistration&) = delete;
  TempRegistration& operator=(const TempRegistration&) = delete;

  /// mkstemp(`name_template`) and registers the name; with `database`, the handler also removes
  /// the name's -wal, -shm and -journal. Returns the descriptor, or -1 with errno set (nothing
  /// registered). Throws ResourceError when the registry is full (a bug: apod holds at most two).
  int create(std::string& name_template, bool database);
  /// Ends the registration. Call it once the file was renamed into place or removed, never
  /// before: until then a signal must still find it.
  void release();
  bool active() const { return slot_ >= 0; }

private:
  int slot_ = -1;
};

/// How many temporary files the handler would remove now (for tests).
int registered_temp_files();

} // namespace apod
