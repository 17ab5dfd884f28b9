#include "core/errors.hpp"

#include <new>

namespace apod {

ExitReport exit_report(const std::exception& e) {
  if (dynamic_cast<const InputError*>(&e))
    return {exit_usage, e.what()};
  if (dynamic_cast<const NoDevice*>(&e) || dynamic_cast<const CudaError*>(&e))
    return {exit_no_device, e.what()};
  if (dynamic_cast<const ResourceError*>(&e))
    return {exit_resources, e.what()};
  if (dynamic_cast<const std::bad_alloc*>(&e) || dynamic_cast<const std::length_error*>(&e))
    return {exit_resources,
            std::string("out of memory (") + e.what() +
                "): the input is larger than this machine can hold; nothing was written"};
  return {exit_internal, std::string("internal error: ") + e.what() +
                             " (a bug in apod; please report it with the command that caused it)"};
}

void refuse_results(const std::string& where, const std::string& what) {
  throw InputError("not a valid apod-results document: " + where + ": " + what);
}

} // namespace apod
