// Which process is writing a run, and whether it still lives. A runner killed with SIGKILL, by
// the OOM killer or by a power cut cannot mark its own run; the store compares the process that
// began a run with the processes alive now and marks the dead ones' runs 'interrupted'.
#pragma once

#include "core/environment.hpp"

namespace apod {

/// This process: host name, boot id, pid namespace, pid, and the pid's start time in clock ticks
/// after boot (a pid is reused; pid and start time together are not).
Writer current_writer();

enum class WriterState {
  alive,   ///< the process still runs
  gone,    ///< it does not: the same host and pid namespace, and no process with that pid and start
           ///< time
  unknown, ///< another host or pid namespace, or no record: nobody here can tell
};

/// Whether the process that `writer` (a current_writer() record) describes still runs. A host
/// with the same name but another boot id is taken to have rebooted (the process is gone), so
/// machines that share a database need distinct host names.
WriterState writer_state(const Writer& writer);

} // namespace apod
