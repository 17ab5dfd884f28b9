// apod's exception types and the exit codes they map to (documented in README.md).
#pragma once

#include <exception>
#include <stdexcept>
#include <string>

namespace apod {

/// Process exit codes. Stable: CI jobs branch on them.
enum ExitCode : int {
  exit_ok = 0,
  /// `apod compare` found a regression, or a GPU lies outside its siblings' spread (slower than
  /// the other GPUs of its model on its host: `apod run --device all`, `apod compare --siblings`;
  /// docs/siblings.md). A failure of the run (3 to 6) takes precedence in `apod run`.
  exit_regression = 1,
  exit_usage = 2,     ///< bad command line, bad input file or database, unwritable path
  exit_no_device = 3, ///< no CUDA-capable device, or the driver failed
  exit_partial = 4,   ///< the run finished but at least one experiment or point failed
  exit_internal = 5,  ///< an unexpected error inside apod (a bug): please report it
  exit_resources = 6, ///< the machine ran out of memory or another resource
  /// `apod compare` / `apod confirm`: no regression found, but some gated figure could not have
  /// shown a change of its threshold (no history of the GPU, too few runs, a slowdown awaiting
  /// re-measurement). Not 0, so that a CI job cannot take it for a pass (docs/ci.md).
  exit_inconclusive = 7,
};

/// The exit code and the one-line message for an exception that reached main(): InputError 2,
/// NoDevice and CudaError 3 (no device, or the driver failed), ResourceError, std::bad_alloc and
/// std::length_error 6 (resources), anything else 5 (an internal error, never passed off as
/// a missing GPU). Defined in errors.cpp; main.cpp and its test use it.
struct ExitReport {
  int code;
  std::string message; ///< without the "apod: error: " prefix
};
ExitReport exit_report(const std::exception& e);

/// Bad input from the user: command line, files, databases. Exit code 2.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Refuses a results document, or a stored run, that apod would not import: throws the
/// InputError "not a valid apod-results document: WHERE: WHAT" (WHERE names the field, e.g.
/// "runs[0].device").
[[noreturn]] void refuse_results(const std::string& where, const std::string& what);

/// No usable CUDA device. Exit code 3.
struct NoDevice : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The machine refused a resource apod needs (memory, a process, a file descriptor). Exit code 6.
struct ResourceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Thrown by an experiment that cannot run on this device or driver (a feature it needs is
/// missing, e.g. persisting L2 before compute capability 8.0): the run stores the experiment as
/// "skipped" with this reason, which is neither a failure nor a figure.
struct ExperimentSkipped : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A CUDA call failed; the message holds the call text, file, line and the CUDA error string.
struct CudaError : std::runtime_error {
  CudaError(const std::string& what, int code) : std::runtime_error(what), code(code) {}
  int code;
};

} // namespace apod
