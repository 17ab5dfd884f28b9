// A stand-in for `apod run` that needs no GPU: it writes runs and experiments through the Store
// exactly as the runner does (one transaction per experiment), for the crash and concurrency
// tests to kill and race.
//   store_writer loop DB LOG PHASE SEED   write runs forever; after each committed experiment
//                                         append "RUN NAME" to LOG; keep the current phase in
//                                         the 1-byte file PHASE (a shared mapping)
//   store_writer batch DB RUNS EXPS SEED [GO]  write RUNS complete runs of EXPS experiments and
//                                         exit 0; first wait until the file GO exists
//   store_writer stall DB LOG EXPS SEED   begin a run, store EXPS experiments (logged as in
//                                         loop), then wait to be killed before finishing it
// Experiment names carry their shape, "e<k>_m<M>_s<S>": M measurements of S samples each, so a
// checker can tell a complete experiment from a torn one without knowing what was written.
#include "core/errors.hpp"
#include "store/store.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

using namespace apod;

namespace {

enum Phase : char { opening = 'o', beginning = 'b', saving = 's', finishing = 'f', between = 'w' };

DeviceInfo fake_device() {
  DeviceInfo d;
  d.name = "Reliability Test GPU";
  d.uuid = "GPU-00000000-0000-0000-0000-reliability";
  d.memory_clock_khz = 1000000;
  d.memory_bus_width_bits = 1024;
  return d;
}

ExperimentRecord make_experiment(int k, std::mt19937_64& rng) {
  const int measurements = 1 + static_cast<int>(rng() % 6),
            samples = 10 + static_cast<int>(rng() % 400);
  ExperimentRecord r;
  r.name = "e" + std::to_string(k) + "_m" + std::to_string(measurements) + "_s" +
           std::to_string(samples);
  r.started_at = now_iso8601();
  r.wall_s = 0.5;
  std::uniform_real_distribution<double> value(100.0, 200.0);
  for (int i = 0; i < measurements; ++i) {
    Measurement m;
    m.experiment = r.name;
    m.params = {{"point", i}};
    m.metric = "effective_bandwidth";
    m.unit = "GB/s";
    m.verified = true;
    for (int s = 0; s < samples; ++s)
      m.samples.push_back(value(rng));
    r.measurements.push_back(std::move(m));
  }
  return r;
}

char* map_phase(const char* path) {
  const int fd = open(path, O_RDWR | O_CREAT, 0644);
  if (fd < 0 || ftruncate(fd, 1) != 0)
    return nullptr;
  void* p = mmap(nullptr, 1, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  return p == MAP_FAILED ? nullptr : static_cast<char*>(p);
}

int loop(const char* db, const char* log_path, const char* phase_path, uint64_t seed) {
  char* phase = map_phase(phase_path);
  const int log = open(log_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (!phase || log < 0)
    return 3;
  *phase = opening;
  Store store(db, Store::Mode::read_write_create);
  std::mt19937_64 rng(seed);
  for (;;) {
    *phase = beginning;
    const std::string run =
        store.begin_run("reliability", fake_device(), environment_from_json({{"test", "crash"}}));
    const int count = 2 + static_cast<int>(rng() % 5);
    for (int k = 0; k < count; ++k) {
      const ExperimentRecord record = make_experiment(k, rng);
      *phase = saving;
      store.save_experiment(run, record);
      *phase = between;
      // Written only after the commit returned: every line names an experiment that must survive.
      const std::string line = run + " " + record.name + "\n";
      if (write(log, line.data(), line.size()) != static_cast<ssize_t>(line.size()))
        return 3;
    }
    *phase = finishing;
    store.finish_run(run, "complete");
    *phase = between;
  }
}

int batch(const char* db, int runs, int experiments, uint64_t seed, const char* go) {
  // All writers wait for the go file, so that they open (and create) the database together.
  while (go && access(go, F_OK) != 0)
    usleep(200);
  Store store(db, Store::Mode::read_write_create);
  std::mt19937_64 rng(seed);
  for (int r = 0; r < runs; ++r) {
    const std::string run = store.begin_run("concurrent", fake_device(),
                                            environment_from_json({{"test", "concurrent"}}));
    for (int k = 0; k < experiments; ++k)
      store.save_experiment(run, make_experiment(k, rng));
    store.finish_run(run, "complete");
  }
  return 0;
}

int stall(const char* db, const char* log_path, int experiments, uint64_t seed) {
  const int log = open(log_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (log < 0)
    return 3;
  Store store(db, Store::Mode::read_write_create);
  std::mt19937_64 rng(seed);
  const std::string run =
      store.begin_run("stalled", fake_device(), environment_from_json({{"test", "resume"}}));
  for (int k = 0; k < experiments; ++k) {
    const ExperimentRecord record = make_experiment(k, rng);
    store.save_experiment(run, record);
    const std::string line = run + " " + record.name + "\n";
    if (write(log, line.data(), line.size()) != static_cast<ssize_t>(line.size()))
      return 3;
  }
  for (;;)
    pause();
}

} // namespace

int main(int argc, char** argv) {
  try {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "loop" && argc == 6)
      return loop(argv[2], argv[3], argv[4], std::strtoull(argv[5], nullptr, 10));
    if (mode == "stall" && argc == 6)
      return stall(argv[2], argv[3], std::atoi(argv[4]), std::strtoull(argv[5], nullptr, 10));
    if (mode == "batch" && (argc == 6 || argc == 7))
      return batch(argv[2], std::atoi(argv[3]), std::atoi(argv[4]),
                   std::strtoull(argv[5], nullptr, 10), argc == 7 ? argv[6] : nullptr);
    std::fprintf(stderr, "usage: store_writer loop DB LOG PHASE SEED | batch DB RUNS EXPS SEED | "
                         "stall DB LOG EXPS SEED\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "store_writer: %s\n", e.what());
    return 1;
  }
}
