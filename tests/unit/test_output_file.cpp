// Outputs never destroy inputs (issue 10): --out naming the database by any spelling, link or
// hard link, or its -wal, is refused; a regular file is replaced whole and keeps its mode; a
// device, FIFO or descriptor is written into, not replaced; gzip by name. Issue 19: temporary
// names fit NAME_MAX, a signal removes temporary files, standard output's failures are reported.
#include "core/errors.hpp"
#include "core/input_file.hpp"
#include "core/output_file.hpp"
#include "core/stdout.hpp"
#include "core/temp_files.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <thread>

namespace fs = std::filesystem;
using namespace apod;

namespace {

struct TempDir {
  fs::path path = fs::temp_directory_path() /
                  ("apod-out-" + std::to_string(getpid()) + "-" + std::to_string(counter()++));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
  static int& counter() {
    static int n = 0;
    return n;
  }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void put(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

std::size_t entries(const fs::path& dir) {
  return static_cast<std::size_t>(
      std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

} // namespace

TEST(OutputFile, ReplacesWholeFileAndFailsCleanly) {
  TempDir dir;
  const auto path = dir / "out.html";
  write_output(path, "first", {});
  write_output(path, "second", {});
  EXPECT_EQ(slurp(path), "second");
  EXPECT_EQ(entries(dir.path), 1u) << "no temporary file left";
  EXPECT_THROW(write_output(dir / "no-such-dir/x", "x", {}), InputError);
  {
    OutputFile out(dir / "abandoned.html", {});
    out.write("half");
  } // never committed: neither the file nor its temporary file is left
  EXPECT_EQ(entries(dir.path), 1u);
}

TEST(OutputFile, RefusesTheDatabaseByAnySpellingLinkOrSidecar) {
  TempDir dir;
  const auto db = dir / "h.db";
  put(db, "precious");
  put(dir / "h.db-wal", "log");
  fs::create_directories(dir.path / "sub");
  fs::create_symlink(db, dir / "link.db");
  fs::create_hard_link(db, dir / "hard.db");
  const std::vector<OutputInput> inputs = {{db, "the database", true}};
  const std::string spellings[] = {db,
                                   dir / "sub/../h.db",
                                   dir / "./h.db",
                                   dir / "link.db",
                                   dir / "hard.db",
                                   dir / "h.db-wal",
                                   dir / "h.db-shm",
                                   dir / "h.db-journal"};
  for (const auto& out : spellings) {
    try {
      write_output(out, "<html>", inputs);
      ADD_FAILURE() << out << " was written";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("refusing to overwrite an input"), std::string::npos)
          << e.what();
    }
  }
  const auto cwd = fs::current_path();
  fs::current_path(dir.path);
  EXPECT_THROW(OutputFile("h.db", inputs), InputError) << "a relative spelling";
  EXPECT_THROW(OutputFile("h.db", {{"./link.db", "the database", true}}), InputError);
  fs::current_path(cwd);
  EXPECT_EQ(slurp(db), "precious");
  EXPECT_EQ(slurp(dir / "h.db-wal"), "log");
}

// SQLite keeps the WAL beside the file it opened, links resolved: a database reached through a
// link has its -wal beside the target, which is an input too.
TEST(OutputFile, RefusesTheWalBesideALinkedDatabasesTarget) {
  TempDir dir;
  fs::create_directories(dir.path / "real");
  put(dir / "real/h.db", "precious");
  fs::create_symlink(dir / "real/h.db", dir / "h.db");
  EXPECT_THROW(OutputFile(dir / "real/h.db-wal", {{dir / "h.db", "the database", true}}),
               InputError);
  EXPECT_NO_THROW(OutputFile(dir / "real/h.db-wal", {{dir / "h.db", "the input file", false}}));
}

TEST(OutputFile, KeepsTheModeOfTheFileItReplaces) {
  TempDir dir;
  const auto path = dir / "private.html";
  put(path, "old");
  chmod(path.c_str(), 0600);
  write_output(path, "new", {});
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  const mode_t mask = umask(0);
  umask(mask);
  write_output(dir / "new.html", "x", {});
  ASSERT_EQ(stat((dir / "new.html").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0666u & ~mask);
}

TEST(OutputFile, WritesThroughASymbolicLinkAndKeepsTheLink) {
  TempDir dir;
  put(dir / "target.html", "old");
  fs::create_symlink(dir / "target.html", dir / "link.html");
  write_output(dir / "link.html", "new", {});
  EXPECT_TRUE(fs::is_symlink(dir / "link.html"));
  EXPECT_EQ(slurp(dir / "target.html"), "new");
  fs::create_symlink(dir / "missing.html", dir / "dangling.html");
  EXPECT_THROW(OutputFile(dir / "dangling.html", {}), InputError);
}

// As root, the old rename replaced /dev/null with a regular file.
TEST(OutputFile, WritesIntoDevicesAndPipesInsteadOfReplacingThem) {
  write_output("/dev/null", "discarded", {});
  struct stat st {};
  ASSERT_EQ(stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "/dev/null is still a device";

  TempDir dir;
  const auto fifo = dir / "pipe";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  fs::create_symlink(fifo, dir / "to-pipe");
  std::string received;
  std::thread reader([&] { received = slurp(fifo); });
  write_output(dir / "to-pipe", "through the pipe", {});
  reader.join();
  EXPECT_EQ(received, "through the pipe");
  ASSERT_EQ(lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_TRUE(fs::is_symlink(dir / "to-pipe"));
}

// /dev/stdout, /dev/fd/N, /proc/self/fd/N: written through the descriptor, so a shell's
// redirection (here an append) is kept and the file behind it is not replaced.
TEST(OutputFile, WritesThroughADescriptorName) {
  TempDir dir;
  const auto log = dir / "log.txt";
  put(log, "kept\n");
  const int fd = open(log.c_str(), O_WRONLY | O_APPEND);
  ASSERT_GE(fd, 0);
  struct stat before {
  }, after{};
  fstat(fd, &before);
  write_output("/proc/self/fd/" + std::to_string(fd), "appended\n", {});
  write_output("/dev/fd/" + std::to_string(fd), "again\n", {});
  close(fd);
  ASSERT_EQ(stat(log.c_str(), &after), 0);
  EXPECT_EQ(slurp(log), "kept\nappended\nagain\n");
  EXPECT_EQ(before.st_ino, after.st_ino);
}

TEST(OutputFile, RefusesDirectoriesSocketsAndAnEmptyName) {
  TempDir dir;
  EXPECT_THROW(OutputFile(dir.path.string(), {}), InputError);
  EXPECT_THROW(OutputFile("", {}), InputError);
  const auto sock_path = dir / "sock";
  const int sock = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", sock_path.c_str());
  ASSERT_EQ(bind(sock, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  try {
    OutputFile out(sock_path, {});
    ADD_FAILURE() << "a socket was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("socket"), std::string::npos);
  }
  close(sock);
}

TEST(OutputFile, NamesEndingInGzAreCompressed) {
  TempDir dir;
  std::string text;
  for (int i = 0; i < 20000; ++i)
    text += "{\"sample\": " + std::to_string(i) + "}\n";
  OutputFile out(dir / "doc.json.gz", {});
  out.write(text.substr(0, 1000));
  out.write(text.substr(1000));
  out.commit();
  const std::string packed = slurp(dir / "doc.json.gz");
  EXPECT_TRUE(is_gzip(packed));
  EXPECT_LT(packed.size(), text.size() / 4);
  EXPECT_EQ(gunzip(packed, text.size(), "doc.json.gz"), text);
}

// Issue 19: a temporary name built from a legal target name is legal too (NAME_MAX is 255
// bytes), cut at a character boundary, and kept beside the target.
TEST(TempFiles, TemporaryNamesFitNameMax) {
  EXPECT_EQ(temp_name_beside("out.html", ".XXXXXX"), ".out.html.XXXXXX");
  EXPECT_EQ(temp_name_beside("/d/h.db", ".new-XXXXXX"), "/d/.h.db.new-XXXXXX");
  const std::string longest(255, 'a');
  const fs::path cut = temp_name_beside("/d/" + longest, ".new-XXXXXX");
  EXPECT_EQ(cut.parent_path(), "/d");
  EXPECT_EQ(cut.filename().string().size(), 255u);
  EXPECT_EQ(cut.filename().string(), "." + std::string(243, 'a') + ".new-XXXXXX");
  EXPECT_EQ(fs::path(temp_name_beside(longest, ".new-XXXXXX", 8)).string().size(), 247u)
      << "room for SQLite's -journal";
  std::string accents; // 127 two-byte characters and "x": 255 bytes
  for (int i = 0; i < 127; ++i)
    accents += "\xc3\xa9";
  const std::string name = fs::path(temp_name_beside(accents + "x", ".XXXXXX")).string();
  EXPECT_LE(name.size(), 255u);
  EXPECT_EQ(name, "." + accents.substr(0, 246) + ".XXXXXX") << "not cut inside a character";
}

TEST(TempFiles, OutputsWithTheLongestLegalNameAreWritten) {
  TempDir dir;
  const std::string path = dir / std::string(255, 'o');
  write_output(path, "long", {});
  EXPECT_EQ(slurp(path), "long");
  EXPECT_EQ(entries(dir.path), 1u) << "no temporary file left";
}

// The registry the signal handler reads: an output's temporary file is in it from its creation
// until it was renamed into place or removed.
TEST(TempFiles, AnOutputIsRegisteredWhileItsTemporaryFileExists) {
  TempDir dir;
  const int before = registered_temp_files();
  {
    OutputFile out(dir / "a.json", {});
    EXPECT_EQ(registered_temp_files(), before) << "nothing created yet";
    out.write("x");
    EXPECT_EQ(registered_temp_files(), before + 1);
    out.commit();
    EXPECT_EQ(registered_temp_files(), before);
  }
  {
    OutputFile out(dir / "b.json", {});
    out.write("x");
    EXPECT_EQ(registered_temp_files(), before + 1);
  } // abandoned: removed and unregistered
  EXPECT_EQ(registered_temp_files(), before);
  std::string name = dir / "c.XXXXXX";
  TempRegistration registration;
  const int fd = registration.create(name, true);
  ASSERT_GE(fd, 0);
  close(fd);
  EXPECT_TRUE(fs::exists(name));
  EXPECT_EQ(registered_temp_files(), before + 1);
  registration.release();
  EXPECT_EQ(registered_temp_files(), before);
}

namespace {

// Runs `body` in a child process and returns its wait status.
template <class Body> int in_child(Body body) {
  const pid_t child = fork();
  if (child == 0) {
    body();
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  return status;
}

// In a child: descriptor 1 on `device` (exit 10 when it cannot be).
void stdout_to(const char* device) {
  const int fd = open(device, O_WRONLY);
  if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
    _exit(10);
}

} // namespace

// A signal while temporary files exist removes them (a database's -wal and -shm too) and then
// ends the process by that same signal.
TEST(TempFiles, ASignalRemovesTemporaryFilesAndStillKills) {
  for (const int sig : {SIGTERM, SIGINT, SIGHUP}) {
    TempDir dir;
    put(dir / "out.json", "old");
    const std::string db_template = dir / ".new.db.new-XXXXXX";
    const int status = in_child([&] {
      // A process the signal would end: the test itself may run under nohup (SIGHUP ignored,
      // inherited), where the handler rightly stays out (AnIgnoredSignalStaysIgnored).
      signal(sig, SIG_DFL);
      install_temp_file_cleanup();
      OutputFile out(dir / "out.json", {});
      out.write("half of a document");
      std::string db = db_template;
      TempRegistration registration;
      close(registration.create(db, true));
      put(db + "-wal", "log");
      put(db + "-shm", "index");
      raise(sig);
      _exit(3); // not reached when the signal kills
    });
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << "status " << status;
    EXPECT_EQ(slurp(dir / "out.json"), "old");
    EXPECT_EQ(entries(dir.path), 1u) << "only the old output is left (signal " << sig << ")";
  }
}

// nohup's SIGHUP stays ignored: the handler is not installed over it.
TEST(TempFiles, AnIgnoredSignalStaysIgnored) {
  TempDir dir;
  const int status = in_child([&] {
    signal(SIGHUP, SIG_IGN);
    install_temp_file_cleanup();
    OutputFile out(dir / "out.json", {});
    out.write("all of it");
    raise(SIGHUP);
    out.commit();
  });
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  EXPECT_EQ(slurp(dir / "out.json"), "all of it");
}

TEST(WriteErrors, AFullDiskAndAFileSizeLimitAreNamed) {
  for (const int err : {ENOSPC, EFBIG, EDQUOT})
    EXPECT_NE(write_error_reason(err).find("the disk is full or a file-size limit was reached"),
              std::string::npos);
  EXPECT_EQ(write_error_reason(EACCES), std::strerror(EACCES));
}

// Standard output on /dev/full: the failure is reported, not lost (it was exit 0 before).
TEST(CheckedStdout, AFailedWriteIsReportedOnce) {
  const int status = in_child([] {
    stdout_to("/dev/full");
    CheckedStdout out;
    std::cout << "a result\n";
    std::cout.flush();
    std::cout << "more\n";
    try {
      out.finish();
      _exit(11);
    } catch (const InputError& e) {
      _exit(std::string(e.what()) == "cannot write to standard output: the disk is full or a "
                                     "file-size limit was reached (No space left on device)"
                ? 0
                : 12);
    }
  });
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  const int ok = in_child([] {
    stdout_to("/dev/null");
    CheckedStdout out;
    std::cout << "printed\n";
    out.finish();
  });
  EXPECT_TRUE(WIFEXITED(ok) && WEXITSTATUS(ok) == 0);
}
