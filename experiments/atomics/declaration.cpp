// atomics' declaration: atomic operations per second in global, shared and mapped host memory as
// the contention (threads per address) grows.
#include "declaration.hpp"

namespace apod::atomics {

const std::vector<Operation>& operations(const std::string& memory) {
  static const std::vector<Operation> global = {{"add_int32", 4, false},
                                                {"add_uint64", 8, false},
                                                {"add_float", 4, false},
                                                {"add_double", 8, false},
                                                {"cas_double_add", 8, true}};
  static const std::vector<Operation> shared = {{"add_int32", 4, false},
                                                {"add_float", 4, false},
                                                {"add_double", 8, false},
                                                {"cas_double_add", 8, true}};
  static const std::vector<Operation> system = {{"add_int32", 4, false}};
  return memory == global_memory ? global : memory == shared_memory ? shared : system;
}

std::vector<int64_t> contention_levels(const std::string& memory, const Operation& op,
                                       int64_t threads, bool quick) {
  if (memory == shared_memory)
    return {1, 32, block_size};
  if (memory == system_memory)
    return {1, 32, threads};
  std::vector<int64_t> levels = {1, 32};
  if (!quick)
    levels.push_back(1024);
  if (!op.cas)
    levels.push_back(threads);
  return levels;
}

int64_t planned_global_threads(const DeviceInfo& device) {
  const int per_sm = device.cc_major == 7 && device.cc_minor == 5 ? 1024 : 2048;
  return int64_t(device.sm_count) * per_sm;
}

namespace {

std::vector<PlannedPoint> plan(const PlanInput& in) {
  std::vector<PlannedPoint> points;
  for (const char* m : {global_memory, shared_memory, system_memory}) {
    const int64_t threads = m == std::string(system_memory)
                                ? int64_t(in.device.sm_count) * system_threads_per_sm
                                : planned_global_threads(in.device);
    for (const Operation& op : operations(m))
      for (const int64_t t : contention_levels(m, op, threads, in.quick))
        points.push_back({{{memory.key, m}, {operation.key, op.key}, {threads_per_address.key, t}},
                          {atomic_rate.name}});
  }
  return points;
}

Chart rate_chart(const char* where, const char* caption) {
  Chart c = Chart::sweep_of(atomic_rate)
                .along(threads_per_address, true, 2)
                .colour(operation)
                .only_where(memory, where);
  c.log_y = true;
  c.y_title = "atomic operations per second (G/s, log scale)";
  c.says(caption,
         {"No model: the documents give no rate, and serialising each address at the rate one "
          "address reaches does not describe the levels between (a warp per address runs far "
          "below it). The notes on CUDA: shared-memory atomics are much faster than global "
          "ones; Pascal 1.4.4: native shared-memory atomics for heavily contended use."});
  return c;
}

} // namespace

APOD_DECLARE(Declaration{
    .name = experiment,
    .title = "Atomic operations under contention",
    .description =
        "Atomic operations per second as more threads update one address. Global memory: "
        "atomicAdd on int, unsigned long long, float and double, and a double add by an "
        "atomicCAS loop (the Programming Guide's pre-Pascal code), with 1 (distinct addresses), "
        "32 (a warp per address), 1024 and all of a full grid's threads per address (the CAS "
        "loop not at all: each success costs an attempt of every contender). Shared memory: "
        "int, float, double and the CAS loop with 1, 32 and 256 (the block) threads per "
        "address. System scope: atomicAdd_system on int in mapped pinned host memory, with a "
        "grid of 64 threads per SM. Each thread updates its address a calibrated number of "
        "times per launch (the result unused); the launches "
        "alternate +1 and -1 so a float counter stays exact, and every counter is compared "
        "exactly on the host with the net of the launches times its threads. "
        "extra.slowdown_vs_distinct: the distinct-address rate of the same operation over the "
        "point's.",
    .citation = "Tuning CUDA Applications for Pascal (seed 003): 1.4.4 Atomic Memory Operations; "
                "Notes on CUDA (seed 002): atomics on shared memory are much faster than on "
                "global memory",
    .version = 1,
    .order = 64,
    .chapter = Chapter::compute,
    .params = {memory, operation, threads_per_address},
    .metrics = {atomic_rate},
    .extras = {{"elements_wrong", "counters that differed from the host's expected count"},
               {"addresses", "counters the launch updates"},
               {"threads", "threads of the launch"},
               {"ops_per_thread", "atomic operations per thread per launch (calibrated)"},
               {"launches", "launches whose net the counters were checked against"},
               {"slowdown_vs_distinct", "the distinct-address rate over this one"},
               {"host_native_atomics", "cudaDevAttrHostNativeAtomicSupported"},
               {"kernel", "the launch's kernel facts"}},
    .charts = {rate_chart(global_memory, "Global-memory atomics against threads per address"),
               rate_chart(shared_memory, "Shared-memory atomics against threads per address"),
               rate_chart(system_memory,
                          "System-scope atomics on mapped host memory against threads per "
                          "address")},
    .plan = plan,
});

} // namespace apod::atomics
