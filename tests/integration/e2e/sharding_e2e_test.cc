// Sharding end to end (docs/sharding.md), under faults: `attune sim serve --tls` fails one API
// request in ten (429, 500, resets, expired watches, 409 on conditional writes) while four real
// `attune controller` processes run as two shards (`--total-shards 2`), a leader and a hot
// standby each, every shard electing on its own Lease. Policies in four namespaces; each
// namespace's pod is resized by its owning shard's leader only, as the Events' reportingInstance
// (the replica's --identity) shows. Then shard 0's leader is killed (SIGKILL): its standby takes
// the Lease within the lease duration and carries on in shard 0's namespaces (a new pod there is
// resized by it), and no pod resized before is resized again.
//
// Takes about four minutes of wall time: it waits on real processes, polling with deadlines.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "controller/shard.h"
#include "core/clock.h"
#include "core/time.h"
#include "integration/e2e/sim_cluster.h"
#include "support/command.h"

namespace attune {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using testing::at;

const std::vector<std::string> kNamespaces{"team-a", "team-b", "team-c", "team-d"};
constexpr int kShards = 2;
// Longer than SimCluster's default 4 s lease: one request in ten fails here, most of them
// answered 429 or 500 with "Retry-After: 1", so one election step may take two or three seconds.
// With a 4 s lease, a leader whose steps met a few such faults in a row lost its Lease now and
// then (the standby took it over, as it should). With 8 s, a leader that made no election step
// for eight seconds (its process not scheduled on a loaded machine running four of these suites
// at once) lost it too. A leader may lose its Lease this way: what the test holds the shards to
// is who acts on a pod, not which replica of a shard leads.
constexpr Duration kLeaseDuration = 12s;
constexpr Duration kRetryPeriod = 1s;
const testing::LeaseTimings kLeaseTimings{
    .leaseDuration = "12s", .renewDeadline = "9s", .retryPeriod = "1s"};

std::string scenarioYaml(Time start) {
  std::string yaml =
      "apiVersion: sim.attune.io/v1alpha1\n"
      "kind: Scenario\n"
      "metadata: {name: shards}\n"
      "spec:\n"
      "  seed: 5\n"
      "  start: \"" +
      formatRfc3339(start) +
      "\"\n"
      "  duration: 2h\n"
      "  tick: 1s\n"
      "  nodePools:\n"
      "  - {name: general, count: 2, cpu: \"4\", memory: 16Gi}\n"
      "  namespaces: [apps, team-a, team-b, team-c, team-d]\n"
      "  workloads:\n";
  for (const std::string& ns : kNamespaces) {
    yaml +=
        "  - kind: Deployment\n"
        "    namespace: " +
        ns +
        "\n"
        "    name: web\n"
        "    replicas: 1\n"
        "    containers:\n"
        "    - name: app\n"
        "      requests: {cpu: 800m, memory: 1Gi}\n"
        "      limits: {cpu: \"2\", memory: 2Gi}\n"
        "      model: {kind: steady, cpuCores: 100m, memoryBytes: 100Mi, noise: 0}\n";
  }
  return yaml;
}

// An Auto policy for `web` in `ns` with windows short enough for a run of minutes.
std::string policyYaml(const std::string& ns) {
  return "apiVersion: attune.io/v1alpha1\n"
         "kind: AttunePolicy\n"
         "metadata: {name: web, namespace: " +
         ns +
         "}\n"
         "spec:\n"
         "  targetRef: {kind: Deployment, name: web}\n"
         "  metricsSource: {historyWindow: 10m, queryStep: 10s, rateWindow: 30s, "
         "minimumDataPoints: 6}\n"
         "  cpu: {maxChangePercent: 100}\n"
         "  memory: {allowDecrease: true, maxChangePercent: 100}\n"
         "  updateStrategy: {type: Auto, autoRevert: true, cooldown: 1m, "
         "safetyObservationPeriod: 1m}\n";
}

std::string identity(int shard, char replica) {
  return "shard-" + std::to_string(shard) + "-" + replica;
}

class ShardingEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = testing::simClusterUnavailable(); !why.empty()) GTEST_SKIP() << why;
    auto cluster = testing::SimCluster::start(scenarioYaml(clock_.now()),
                                              {"--fault-rate", "0.1", "--fault-seed", "7"});
    ASSERT_TRUE(cluster.has_value()) << cluster.error().toString();
    cluster_ = std::move(*cluster);
  }

  json getJson(const std::string& args) { return cluster_->getJson(args); }
  bool waitFor(Duration limit, const std::function<bool()>& done) {
    return cluster_->waitFor(limit, done);
  }

  // Starts replica `replica` of `shard` (its log: <identity>.log).
  void start(int shard, char replica) {
    const std::string id = identity(shard, replica);
    controllers_[id] = cluster_->spawn(
        cluster_->controllerArgv(testing::freeLocalPort(),
                                 {"--total-shards", std::to_string(kShards), "--shard",
                                  std::to_string(shard), "--identity", id},
                                 kLeaseTimings),
        id + ".log");
    ASSERT_TRUE(controllers_[id]->running()) << id;
    logs_.insert(id);
  }
  std::string controllerLogs() const {
    std::string all;
    for (const std::string& id : logs_) all += "--- " + id + ".log\n" + cluster_->log(id + ".log");
    return all;
  }

  // The election lines (leadership, standing by, failed steps) of `shard`'s replicas' logs.
  std::string electionLogs(int shard) const {
    std::string out;
    for (const std::string& id : logs_) {
      if (!id.starts_with("shard-" + std::to_string(shard) + "-")) continue;
      out += "--- " + id + ".log\n";
      std::istringstream lines(cluster_->log(id + ".log"));
      for (std::string line; std::getline(lines, line);) {
        if (line.find("leader") != std::string::npos || line.find("lease") != std::string::npos) {
          out += line + "\n";
        }
      }
    }
    return out;
  }

  // How much longer than a retry period the election steps of replica `id` that ended after
  // `since` took, together (its "leader election step slow" lines, one per such step): the
  // time faults (a 429 or 500 answered with "Retry-After: 1", a dropped connection) added.
  // And how late its steps started (its "leader election step late" lines): the time its
  // thread was not scheduled.
  Duration slowStepExcess(const std::string& id, Time since) const {
    Duration excess{0};
    std::istringstream lines(cluster_->log(id + ".log"));
    for (std::string line; std::getline(lines, line);) {
      const json record = json::parse(line, nullptr, false);
      if (!record.is_object()) continue;
      const std::string msg = record.value("msg", "");
      if (msg != "leader election step slow" && msg != "leader election step late") continue;
      const auto logged = parseRfc3339(record.value("ts", ""));
      if (!logged || *logged < since) continue;
      const auto seconds = std::chrono::duration_cast<Duration>(
          std::chrono::duration<double>(std::stod(record.value("seconds", "0"))));
      excess += msg == "leader election step slow" ? seconds - kRetryPeriod : seconds;
    }
    return excess;
  }

  json lease(int shard) {
    return getJson("lease -n apps attune-leader-shard-" + std::to_string(shard));
  }
  std::string holder(int shard) { return at(lease(shard), {"spec", "holderIdentity"}).dump(); }

  // The `web` pods of `ns`.
  std::vector<json> pods(const std::string& ns) {
    const json list = getJson("pods -n " + ns + " -l app.kubernetes.io/name=web");
    std::vector<json> out;
    if (at(list, {"items"}).is_array()) {
      for (const json& p : list["items"]) out.push_back(p);
    }
    return out;
  }
  static bool resized(const json& pod) {
    return !at(pod, {"metadata", "annotations", "attune.io/resized-at"}).is_null();
  }
  // The attune-controller Events of `ns`.
  std::vector<json> events(const std::string& ns) {
    const json list = getJson("events -n " + ns);
    std::vector<json> out;
    if (!at(list, {"items"}).is_array()) return out;
    for (const json& e : list["items"]) {
      if (e.value("reportingComponent", "") == "attune-controller") out.push_back(e);
    }
    return out;
  }
  // The reportingInstance of each Resized Event about `pod` (a create whose response a fault
  // lost may be sent again: an Event can be doubled, so Events say who, not how often).
  std::set<std::string> resizedBy(const std::string& ns, const std::string& pod) {
    std::set<std::string> out;
    for (const json& e : events(ns)) {
      if (e.value("reason", "") != "Resized" || at(e, {"involvedObject", "name"}) != pod) continue;
      out.insert(e.value("reportingInstance", ""));
    }
    return out;
  }
  // How often `pod` was resized: the distinct times of its policy's history entries for it (a
  // resize is one entry per resource, all with the resize's time).
  std::size_t resizes(const std::string& ns, const std::string& pod) {
    std::set<std::string> times;
    const json entries = at(getJson("attunepolicy -n " + ns + " web"), {"status", "resizeHistory"});
    if (!entries.is_array()) return 0;
    for (const json& e : entries) {
      const std::string result = e.value("result", "");
      if (e.value("pod", "") == pod && (result == "Success" || result == "Reverted")) {
        times.insert(e.value("timestamp", ""));
      }
    }
    return times.size();
  }

  SystemClock clock_;
  std::unique_ptr<testing::SimCluster> cluster_;
  std::map<std::string, std::unique_ptr<testing::ChildProcess>> controllers_;
  std::set<std::string> logs_;
};

TEST_F(ShardingEndToEnd, EachShardResizesOnlyItsNamespacesAndAStandbyTakesOverOnce) {
  // Both shards own some of the namespaces (the test would prove nothing otherwise).
  std::map<std::string, int> owner;
  std::set<int> owners;
  for (const std::string& ns : kNamespaces) {
    owner[ns] = controller::shardOfNamespace(ns, kShards);
    owners.insert(owner[ns]);
  }
  ASSERT_EQ(owners.size(), 2u) << "every namespace on one shard";

  std::string policies;
  for (const std::string& ns : kNamespaces) policies += policyYaml(ns) + "---\n";
  cluster_->write("policies.yaml", policies);
  const auto applied = cluster_->kubectl("apply -f " + cluster_->path("policies.yaml"));
  ASSERT_EQ(applied.exitCode, 0) << applied.err;

  // The leaders first, then their standbys.
  ASSERT_NO_FATAL_FAILURE(start(0, 'a'));
  ASSERT_NO_FATAL_FAILURE(start(1, 'a'));
  ASSERT_TRUE(waitFor(30s, [&] {
    return holder(0) == "\"shard-0-a\"" && holder(1) == "\"shard-1-a\"";
  })) << controllerLogs();
  ASSERT_NO_FATAL_FAILURE(start(0, 'b'));
  ASSERT_NO_FATAL_FAILURE(start(1, 'b'));

  // Every namespace's pod is resized, by its shard's leader: the record on the pod (written
  // first), then the Event and the policy's history (written after the resize).
  ASSERT_TRUE(waitFor(4min, [&] {
    for (const std::string& ns : kNamespaces) {
      const auto p = pods(ns);
      if (p.size() != 1 || !resized(p[0])) return false;
      const std::string name = at(p[0], {"metadata", "name"}).get<std::string>();
      if (resizedBy(ns, name).empty() || resizes(ns, name) == 0) return false;
    }
    return true;
  })) << controllerLogs();
  // Each pod resized once, by one replica of its namespace's shard: the one leading it then
  // (the replica started first, unless its Lease passed to the standby meanwhile).
  std::map<std::string, std::int64_t> generations;  // "ns/pod" → generation after the resize
  std::map<std::string, std::string> resizer;       // "ns/pod" → the replica that resized it
  for (const std::string& ns : kNamespaces) {
    const json pod = pods(ns).at(0);
    const std::string name = at(pod, {"metadata", "name"}).get<std::string>();
    const std::string key = ns + "/" + name;
    generations[key] = at(pod, {"metadata", "generation"}).get<std::int64_t>();
    EXPECT_EQ(resizes(ns, name), 1u) << key;
    const std::set<std::string> by = resizedBy(ns, name);
    ASSERT_EQ(by.size(), 1u) << key << " resized by more than one replica\n"
                             << electionLogs(owner[ns]);
    resizer[key] = *by.begin();
    EXPECT_TRUE(resizer[key] == identity(owner[ns], 'a') ||
                resizer[key] == identity(owner[ns], 'b'))
        << key << " resized by " << resizer[key] << ", not by shard " << owner[ns];
  }
  // Shard 1's holder, which the kill of shard 0's leader must leave alone.
  const std::string shard1Holder = holder(1);

  // Shard 0's leader dies without releasing its Lease; its standby takes it over.
  const json before = lease(0);
  const std::int64_t transitions = at(before, {"spec", "leaseTransitions"}).get<std::int64_t>();
  const std::string leader0 = at(before, {"spec", "holderIdentity"}).get<std::string>();
  ASSERT_TRUE(leader0 == identity(0, 'a') || leader0 == identity(0, 'b')) << before.dump(2);
  const std::string standby0 = leader0 == identity(0, 'a') ? identity(0, 'b') : identity(0, 'a');
  controllers_.erase(leader0);  // SIGKILL
  const Time killed = clock_.now();
  ASSERT_TRUE(waitFor(30s, [&] { return holder(0) == json(standby0).dump(); })) << controllerLogs();
  const json after = lease(0);
  EXPECT_EQ(at(after, {"spec", "leaseTransitions"}).get<std::int64_t>(), transitions + 1);
  auto acquired = parseRfc3339(at(after, {"spec", "acquireTime"}).get<std::string>());
  ASSERT_TRUE(acquired.has_value()) << after.dump(2);
  // The lease expires at most kLeaseDuration after the killed leader's last renewal (which was
  // before the kill). The standby steps at that instant, or when the step it is running then
  // ends, and sends its update within that step. Allowed: kLeaseDuration + 2 retry periods,
  // plus what faults added to the standby's steps since the kill (a request retried after
  // "Retry-After: 1" waits a second), each such step being logged as slow.
  const Duration handover = *acquired - killed;
  const Duration faults = slowStepExcess(standby0, killed);
  EXPECT_LE(handover, kLeaseDuration + 2 * kRetryPeriod + faults)
      << formatDuration(handover) << " (slow steps added " << formatDuration(faults) << ")\n"
      << electionLogs(0);
  std::cout << "shard 0 handed over " << std::chrono::duration<double>(handover).count()
            << " s after its leader was killed (its standby's slow steps took "
            << std::chrono::duration<double>(faults).count() << " s more than their period)\n";
  EXPECT_EQ(holder(1), shard1Holder) << "shard 1 is not affected\n" << electionLogs(1);

  // The standby carries on in shard 0's namespaces: a new pod there is resized by it.
  std::string shard0Namespace;
  for (const std::string& ns : kNamespaces) {
    if (owner[ns] == 0) shard0Namespace = ns;
  }
  const auto scaled =
      cluster_->kubectl("scale deployment web -n " + shard0Namespace + " --replicas=2");
  ASSERT_EQ(scaled.exitCode, 0) << scaled.err;
  std::string newPod;
  ASSERT_TRUE(waitFor(4min, [&] {
    for (const json& p : pods(shard0Namespace)) {
      const std::string name = at(p, {"metadata", "name"}).get<std::string>();
      if (!generations.contains(shard0Namespace + "/" + name) && resized(p) &&
          !resizedBy(shard0Namespace, name).empty()) {
        newPod = name;
      }
    }
    return !newPod.empty();
  })) << controllerLogs();
  EXPECT_EQ(resizedBy(shard0Namespace, newPod), std::set<std::string>{standby0}) << newPod;

  // No pod resized before the handover was resized again, by anyone; and no replica wrote an
  // Event in a namespace of the other shard.
  for (const auto& [key, generation] : generations) {
    const std::string ns = key.substr(0, key.find('/'));
    const std::string name = key.substr(key.find('/') + 1);
    const json pod = getJson("pod -n " + ns + " " + name);
    EXPECT_EQ(at(pod, {"metadata", "generation"}).get<std::int64_t>(), generation) << key;
    EXPECT_EQ(resizes(ns, name), 1u) << key;
    EXPECT_EQ(resizedBy(ns, name), std::set<std::string>{resizer[key]}) << key;
  }
  for (const std::string& ns : kNamespaces) {
    for (const json& e : events(ns)) {
      const std::string by = e.value("reportingInstance", "");
      EXPECT_TRUE(by == identity(owner[ns], 'a') || by == identity(owner[ns], 'b'))
          << ns << ": " << e.dump();
    }
  }
}

}  // namespace
}  // namespace attune
