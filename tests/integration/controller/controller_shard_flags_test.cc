// The sharding flags of the `attune controller` binary (docs/sharding.md): bad input stops it at
// start with exit code 2 and an error naming the flag (or $POD_NAME); good input gets past the
// flags (to the missing kubeconfig, exit 1).
#include <gtest/gtest.h>

#include <string>

#include "support/command.h"

namespace attune {
namespace {

// The controller with `flags`, $POD_NAME set to `podName` (unset when empty), no cluster.
testing::CommandRun controller(const std::string& flags, const std::string& podName = {}) {
  const std::string env = podName.empty() ? "env -u POD_NAME " : "env POD_NAME=" + podName + " ";
  return testing::runCommand(env + ATTUNE_BINARY +
                             " controller --kubeconfig /nonexistent/kubeconfig "
                             "--prometheus-url http://127.0.0.1:9 " +
                             flags);
}

void expectUsageError(const testing::CommandRun& run, const std::string& message) {
  EXPECT_EQ(run.exitCode, 2) << run.err;
  EXPECT_NE(run.err.find(message), std::string::npos) << run.err;
}

TEST(ControllerShardFlags, BadShardFlagsAreRefusedNamingTheFlag) {
  expectUsageError(controller("--total-shards 0"), "--total-shards: must be at least 1, got 0");
  expectUsageError(controller("--total-shards 3 --shard 3"),
                   "--shard: must be in [0, 3) for --total-shards 3, got 3");
  expectUsageError(controller("--total-shards 3 --shard -1"), "--shard: must be in [0, 3)");
  expectUsageError(controller("--shard 1"), "--shard: must be in [0, 1)");
  expectUsageError(controller("--total-shards 3 --shard-from-pod-name"),
                   "--shard-from-pod-name: needs $POD_NAME");
  expectUsageError(controller("--total-shards 3 --shard-from-pod-name", "attune-controller"),
                   "POD_NAME (--shard-from-pod-name): want a StatefulSet pod name ending in "
                   "-<ordinal> (e.g. attune-controller-2), got \\\"attune-controller\\\"");
  expectUsageError(controller("--total-shards 3 --shard-from-pod-name", "attune-controller-07"),
                   "POD_NAME (--shard-from-pod-name)");
  expectUsageError(controller("--total-shards 3 --shard 1 --shard-from-pod-name", "attune-1"),
                   "--shard: give either --shard or --shard-from-pod-name");
  expectUsageError(
      controller("--total-shards 2 --shard 0 --webhook-address 127.0.0.1:0 --oom-recovery"),
      "--oom-recovery: cannot be used with --total-shards above 1");
}

TEST(ControllerShardFlags, GoodShardFlagsGetPastTheFlags) {
  for (const auto& [flags, pod] :
       {std::pair<std::string, std::string>{"--total-shards 3 --shard 2", ""},
        {"--total-shards 3 --shard-from-pod-name", "attune-controller-4"},
        {"--total-shards 1", ""}}) {
    const auto run = controller(flags, pod);
    EXPECT_EQ(run.exitCode, 1) << flags << ": " << run.err;
    EXPECT_NE(run.err.find("cannot load the cluster configuration"), std::string::npos)
        << flags << ": " << run.err;
  }
}

}  // namespace
}  // namespace attune
