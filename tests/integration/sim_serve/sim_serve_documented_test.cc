// The `attune sim serve` and `kubectl` commands of README.md and docs/sim-serve.md, run as a
// newcomer types them: the serve command in the background, then every kubectl command of the
// same example once the kubeconfig file appears. Only what cannot be shared between concurrent
// test runs is replaced: the binary's path (`attune`, `./build/release/attune`), the port
// 8443 (by a free one) and /tmp/sim.kubeconfig (by a file in the test's directory). Also
// `--plain-http`, where the kubeconfig carries no token and kubectl works all the same.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "core/clock.h"
#include "support/command.h"
#include "support/prometheus/child_process.h"
#include "support/shared_dir.h"

namespace attune {
namespace {

constexpr auto kReadyPoll = std::chrono::milliseconds(100);
constexpr int kReadyAttempts = 300;  // 30 s
constexpr std::string_view kDocumentedListen = "127.0.0.1:8443";
constexpr std::string_view kDocumentedKubeconfig = "/tmp/sim.kubeconfig";

// Every command of the ```sh blocks of `markdown`, continuation lines joined, comments dropped.
std::vector<std::string> documentedCommands(const std::filesystem::path& markdown) {
  std::istringstream text(testing::readFile(markdown));
  std::vector<std::string> commands;
  bool inShell = false;
  std::string pending;
  for (std::string line; std::getline(text, line);) {
    if (line.starts_with("```")) {
      inShell = !inShell && line == "```sh";
      continue;
    }
    if (!inShell) continue;
    if (const auto hash = line.find("  #"); hash != std::string::npos) line.resize(hash);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    if (line.ends_with("\\")) {
      pending += line.substr(0, line.size() - 1);
      continue;
    }
    pending += line;
    const auto start = pending.find_first_not_of(' ');
    if (start != std::string::npos) commands.push_back(pending.substr(start));
    pending.clear();
  }
  return commands;
}

void replaceAll(std::string& text, std::string_view from, const std::string& to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
}

class SimServeDocumented : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::findOnPath("kubectl"))
      GTEST_SKIP() << "kubectl is not installed (scripts/setup.sh installs it)";
    kubeconfig_ = (dir_.path() / "sim.kubeconfig").string();
    listen_ = "127.0.0.1:" + std::to_string(testing::freeLocalPort());
  }

  // `command` as documented, with the binary, port and kubeconfig of this test.
  std::string adapted(std::string command) const {
    for (std::string_view binary : {"./build/release/attune ", "attune "}) {
      if (command.starts_with(binary)) {
        command = std::string(ATTUNE_BINARY) + " " + command.substr(binary.size());
      }
    }
    replaceAll(command, kDocumentedListen, listen_);
    replaceAll(command, kDocumentedKubeconfig, kubeconfig_);
    return command;
  }

  // A shell line that runs `command` from the source directory, where the documented commands
  // are typed (they name files relative to it).
  static std::string inSourceDir(const std::string& command) {
    return "cd " + testing::sourceDir().string() + " && " + command;
  }

  // Starts `serveCommand` and waits, bounded, for the kubeconfig it writes once it is ready.
  void serve(const std::string& serveCommand) {
    server_ = std::make_unique<testing::ChildProcess>(
        std::vector<std::string>{"sh", "-c", inSourceDir("exec " + adapted(serveCommand))},
        dir_.path() / "serve.log");
    SystemClock clock;
    for (int i = 0; i < kReadyAttempts; ++i) {
      if (std::filesystem::exists(kubeconfig_)) return;
      ASSERT_TRUE(server_->running()) << testing::readFile(dir_.path() / "serve.log");
      clock.sleepFor(kReadyPoll);
    }
    FAIL() << "no kubeconfig after 30 s:\n" << testing::readFile(dir_.path() / "serve.log");
  }

  // Runs the example of `markdown` that serves the simulator: its `attune sim serve` command,
  // then every kubectl command after it; checks that `kubectl ... get pods -A` lists pods.
  void runDocumentedExample(const std::filesystem::path& markdown) {
    const std::vector<std::string> commands = documentedCommands(markdown);
    auto serveAt = std::find_if(commands.begin(), commands.end(), [](const std::string& c) {
      return c.find("attune sim serve ") != std::string::npos;
    });
    ASSERT_NE(serveAt, commands.end()) << markdown << " documents no `attune sim serve`";
    ASSERT_NE(serveAt->find(kDocumentedKubeconfig), std::string::npos) << *serveAt;
    ASSERT_NO_FATAL_FAILURE(serve(*serveAt));
    bool listedPods = false;
    for (auto it = serveAt + 1; it != commands.end() && it->starts_with("kubectl "); ++it) {
      testing::CommandRun run = testing::runCommand(inSourceDir(adapted(*it)));
      ASSERT_EQ(run.exitCode, 0) << *it << "\n" << run.out << run.err;
      if (it->ends_with(" get pods -A")) {
        listedPods = true;
        EXPECT_NE(run.out.find("NAMESPACE"), std::string::npos) << run.out;
        EXPECT_NE(run.out.find("Running"), std::string::npos) << run.out;
      }
    }
    EXPECT_TRUE(listedPods) << markdown << ": no `kubectl --kubeconfig FILE get pods -A` after "
                            << *serveAt;
  }

  testing::TempDir dir_;
  std::string kubeconfig_;
  std::string listen_;
  std::unique_ptr<testing::ChildProcess> server_;
};

TEST_F(SimServeDocumented, TheReadmeCommandsWork) {
  runDocumentedExample(testing::sourceDir() / "README.md");
}

TEST_F(SimServeDocumented, TheSimServeGuideCommandsWork) {
  runDocumentedExample(testing::sourceDir() / "docs/sim-serve.md");
}

TEST_F(SimServeDocumented, PlainHttpNeedsNoToken) {
  ASSERT_NO_FATAL_FAILURE(
      serve("attune sim serve --plain-http --listen 127.0.0.1:8443 --kubeconfig-out " +
            std::string(kDocumentedKubeconfig)));
  const std::string config = testing::readFile(kubeconfig_);
  EXPECT_NE(config.find("server: http://" + listen_), std::string::npos) << config;
  EXPECT_EQ(config.find("token:"), std::string::npos) << config;
  testing::CommandRun run =
      testing::runCommand("kubectl --kubeconfig " + kubeconfig_ + " get pods -A");
  ASSERT_EQ(run.exitCode, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("Running"), std::string::npos) << run.out;
}

}  // namespace
}  // namespace attune
