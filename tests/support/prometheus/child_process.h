// Child processes for integration tests: run a tool to completion, or keep a server running
// for the lifetime of an object (killed and reaped on destruction).
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/time.h"

namespace attune::testing {

// The absolute path of `program` found on PATH, or nullopt.
std::optional<std::filesystem::path> findOnPath(const std::string& program);

// Runs argv[0] (looked up on PATH) with stdout and stderr appended to `log`; returns its exit
// status, or -1 if it could not be started or did not exit normally.
int runToCompletion(const std::vector<std::string>& argv, const std::filesystem::path& log);

// A running child process; the destructor kills (SIGKILL) and reaps it unless it has already
// been reaped. Not thread-safe.
class ChildProcess {
 public:
  // Starts argv with stdout and stderr appended to `log`; running() is false on failure.
  ChildProcess(const std::vector<std::string>& argv, const std::filesystem::path& log);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // True while the child has not exited (reaps it if it has).
  bool running();

  // The child's process id, or -1 if it could not be started.
  pid_t pid() const { return pid_; }

  // Sends SIGTERM (unless the child has already exited) and waits up to `timeout` for it to
  // exit, polling every 10ms with SystemClock. Returns true once it has exited and been reaped,
  // with *exitCode (when not null) set to its exit status, or -1 if a signal ended it. Returns
  // false when it never started or is still running after `timeout` (it is then left running;
  // the destructor kills it).
  bool terminate(Duration timeout, int* exitCode);

 private:
  // Reaps the child if it has exited, recording its exit code; true once it has been reaped.
  bool reap();

  pid_t pid_ = -1;
  std::optional<int> exitCode_;  // set once reaped
};

// A fresh directory under the system temp dir, removed (recursively) on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// A TCP port on 127.0.0.1 that was free a moment ago, drawn below the kernel's range for
// outgoing connections' local ports (only when that leaves too few: bound to port 0, released).
int freeLocalPort();

}  // namespace attune::testing
