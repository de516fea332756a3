// The Kubernetes client flags of the `attune controller` binary, --kube-api-qps and
// --kube-api-burst (docs/operator.md): bad input stops it at start with exit code 2 and an error
// naming the flag; good input, negative QPS included, gets past the flags (to the missing
// kubeconfig, exit 1).
#include <gtest/gtest.h>

#include <string>

#include "support/command.h"

namespace attune {
namespace {

testing::CommandRun controller(const std::string& flags) {
  return testing::runCommand(std::string(ATTUNE_BINARY) +
                             " controller --kubeconfig /nonexistent/kubeconfig "
                             "--prometheus-url http://127.0.0.1:9 " +
                             flags);
}

TEST(ControllerClientFlags, BadLimitsAreRefusedNamingTheFlag) {
  for (const auto& [flags, message] : {
           std::pair<std::string, std::string>{"--kube-api-qps 0",
                                               "--kube-api-qps: must be positive, or negative"},
           {"--kube-api-qps fast", "--kube-api-qps: want a number of requests per second"},
           {"--kube-api-qps nan", "--kube-api-qps: want a number"},
           {"--kube-api-burst 0", "--kube-api-burst: want a whole number of requests from 1"},
           {"--kube-api-burst 1.5", "--kube-api-burst: want a whole number"},
           {"--kube-api-qps -1 --kube-api-burst -1", "--kube-api-burst: want a whole number"},
       }) {
    const auto run = controller(flags);
    EXPECT_EQ(run.exitCode, 2) << flags << ": " << run.err;
    EXPECT_NE(run.err.find(message), std::string::npos) << flags << ": " << run.err;
  }
}

TEST(ControllerClientFlags, GoodLimitsGetPastTheFlags) {
  for (const std::string flags :
       {"", "--kube-api-qps 100 --kube-api-burst 200", "--kube-api-qps=0.5 --kube-api-burst=1",
        "--kube-api-qps -1", "--kube-api-qps=-1"}) {
    const auto run = controller(flags);
    EXPECT_EQ(run.exitCode, 1) << flags << ": " << run.err;
    EXPECT_NE(run.err.find("cannot load the cluster configuration"), std::string::npos)
        << flags << ": " << run.err;
  }
}

TEST(ControllerClientFlags, HelpShowsTheDefaults) {
  const auto run = testing::runCommand(std::string(ATTUNE_BINARY) + " controller --help");
  EXPECT_EQ(run.exitCode, 0) << run.err;
  EXPECT_NE(run.out.find("--kube-api-qps TEXT=20"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("--kube-api-burst TEXT=30"), std::string::npos) << run.out;
}

}  // namespace
}  // namespace attune
