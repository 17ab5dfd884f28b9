#include "core/temp_files.hpp"

#include "core/errors.hpp"

#include <climits>
#include <csignal>
#include <cstring>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <filesystem>

namespace apod {

namespace {

// The signals whose default action ends the process and that a user, a terminal, a pipe or a
// scheduler sends to stop a command. SIGKILL cannot be caught; nothing can clean up after it.
constexpr int handled_signals[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGALRM};

// The registry is read inside a signal handler, so it is a fixed array of plain buffers with
// lock-free atomic states: no allocation, no lock, nothing a handler may not touch.
enum SlotState : int { slot_free = 0, slot_filling = 1, slot_active = 2 };
struct Slot {
  std::atomic<int> state{slot_free};
  bool database = false;
  char path[PATH_MAX] = {};
};
static_assert(std::atomic<int>::is_always_lock_free);
constexpr int slot_count = 16; // apod holds at most two temporary files at once
Slot slots[slot_count];

sigset_t handled_set() {
  sigset_t set;
  sigemptyset(&set);
  for (const int sig : handled_signals)
    sigaddset(&set, sig);
  return set;
}

// Async-signal-safe: unlink, strlen and memcpy only.
void remove_registered() {
  for (Slot& slot : slots) {
    if (slot.state.load(std::memory_order_acquire) != slot_active)
      continue;
    unlink(slot.path);
    if (!slot.database)
      continue;
    // SQLite creates these beside a database while it is open; they are as temporary as it is.
    char sidecar[PATH_MAX + 16];
    const std::size_t length = std::strlen(slot.path);
    for (const char* suffix : {"-wal", "-shm", "-journal"}) {
      std::memcpy(sidecar, slot.path, length);
      std::memcpy(sidecar + length, suffix, std::strlen(suffix) + 1);
      unlink(sidecar);
    }
  }
}

void remove_and_die(int sig) {
  remove_registered();
  // Then the signal's own default action, so the parent sees the process died of it (a shell
  // prints 128 + sig; `timeout` and CI runners tell a kill from a failure).
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  sigaction(sig, &default_action, nullptr);
  sigset_t only;
  sigemptyset(&only);
  sigaddset(&only, sig);
  sigprocmask(SIG_UNBLOCK, &only, nullptr);
  raise(sig);
}

} // namespace

std::string temp_name_beside(const std::string& target, std::string_view suffix,
                             std::size_t reserved) {
  static_assert(NAME_MAX - 8 == max_database_name_bytes);
  const std::filesystem::path path(target);
  std::string name = path.filename().string();
  const std::size_t fixed = 1 + suffix.size() + reserved;
  const std::size_t room = NAME_MAX > fixed ? NAME_MAX - fixed : 1;
  if (name.size() > room) {
    std::size_t cut = room;
    while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80)
      --cut; // not inside a multi-byte character: the name stays readable UTF-8
    name.resize(cut);
  }
  name.insert(0, ".").append(suffix);
  return path.has_parent_path() ? (path.parent_path() / name).string() : name;
}

void install_temp_file_cleanup() {
  struct sigaction action {};
  action.sa_handler = remove_and_die;
  action.sa_mask = handled_set(); // one cleanup at a time, never interrupted by a second signal
  for (const int sig : handled_signals) {
    struct sigaction before {};
    if (sigaction(sig, nullptr, &before) == 0 && before.sa_handler == SIG_IGN)
      continue;
    sigaction(sig, &action, nullptr);
  }
}

int TempRegistration::create(std::string& name_template, bool database) {
  release();
  int index = 0;
  for (int expected = slot_free; index < slot_count; ++index, expected = slot_free)
    if (slots[index].state.compare_exchange_strong(expected, slot_filling))
      break;
  if (index == slot_count)
    throw ResourceError("too many temporary files at once (an apod bug: please report it)");
  Slot& slot = slots[index];
  if (name_template.size() >= sizeof slot.path) {
    slot.state.store(slot_free);
    errno = ENAMETOOLONG;
    return -1;
  }
  // Between mkstemp and the registration a signal would find the file unregistered: this thread
  // holds the signals back until the name is in place (apod writes from one thread).
  const sigset_t handled = handled_set();
  sigset_t before;
  pthread_sigmask(SIG_BLOCK, &handled, &before);
  const int fd = mkstemp(name_template.data());
  const int err = errno;
  if (fd >= 0) {
    std::memcpy(slot.path, name_template.c_str(), name_template.size() + 1);
    slot.database = database;
    slot.state.store(slot_active, std::memory_order_release);
    slot_ = index;
  } else {
    slot.state.store(slot_free);
  }
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  errno = err;
  return fd;
}

void TempRegistration::release() {
  if (slot_ < 0)
    return;
  slots[slot_].state.store(slot_free, std::memory_order_release);
  slot_ = -1;
}

int registered_temp_files() {
  int count = 0;
  for (const Slot& slot : slots)
    count += slot.state.load() == slot_active;
  return count;
}

} // namespace apod
