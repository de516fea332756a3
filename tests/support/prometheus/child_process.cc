#include "support/prometheus/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

#include "core/clock.h"
#include "support/loopback_server.h"

extern char** environ;

namespace attune::testing {
namespace {

pid_t spawn(const std::vector<std::string>& argv, const std::filesystem::path& log) {
  auto program = findOnPath(argv.at(0));
  if (!program) return -1;
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, program->c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return rc == 0 ? pid : -1;
}

}  // namespace

std::optional<std::filesystem::path> findOnPath(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    std::filesystem::path candidate = std::filesystem::path(dir) / program;
    if (!dir.empty() && access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

int runToCompletion(const std::vector<std::string>& argv, const std::filesystem::path& log) {
  const pid_t pid = spawn(argv, log);
  if (pid < 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const std::filesystem::path& log)
    : pid_(spawn(argv, log)) {}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !exitCode_) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

bool ChildProcess::running() { return pid_ > 0 && !reap(); }

bool ChildProcess::terminate(Duration timeout, int* exitCode) {
  if (pid_ <= 0) return false;
  if (!reap()) kill(pid_, SIGTERM);
  SystemClock clock;
  const Time deadline = clock.now() + timeout;
  while (!reap()) {
    if (clock.now() >= deadline) return false;
    clock.sleepFor(std::chrono::milliseconds(10));
  }
  if (exitCode != nullptr) *exitCode = *exitCode_;
  return true;
}

bool ChildProcess::reap() {
  if (exitCode_) return true;
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) != pid_) return false;
  exitCode_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return true;
}

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "attune-prom-XXXXXX").string();
  if (mkdtemp(pattern.data()) != nullptr) path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ec;
  if (!path_.empty()) std::filesystem::remove_all(path_, ec);
}

namespace {

// The first port of the kernel's range for outgoing connections' local ports (32768 unless
// configured otherwise).
int ephemeralPortsStart() {
  std::ifstream range("/proc/sys/net/ipv4/ip_local_port_range");
  int first = 0;
  return range >> first ? first : 32768;
}

}  // namespace

int freeLocalPort() {
  // A port below the range the kernel hands to outgoing connections: between the probe and the
  // server's bind, none of the many connections the tests running alongside open (kubectl,
  // Prometheus scrapes, controllers' clients) can take it, as they could a port bound to 0. The
  // ports are drawn at random so that test processes probing at once rarely draw the same one.
  constexpr int kLowest = 10000;
  const int end = ephemeralPortsStart();
  if (end - kLowest >= 1000) {
    std::mt19937 draw(std::random_device{}() ^ static_cast<unsigned>(getpid()));
    std::uniform_int_distribution<int> port(kLowest, end - 1);
    for (int attempt = 0; attempt < 100; ++attempt) {
      const LoopbackSocket bound = bindLoopbackSocket(false, port(draw));
      if (bound.fd >= 0) close(bound.fd);
      if (bound.port != 0) return bound.port;
    }
  }
  const LoopbackSocket bound = bindLoopbackSocket(false);
  if (bound.fd >= 0) close(bound.fd);
  return bound.port != 0 ? bound.port : -1;
}

}  // namespace attune::testing
