// Realistic Kubernetes Pod JSON for tests and benchmarks: what `kubectl get pod -o json` shows
// for a running pod of a Deployment (managedFields, volumes, env, probes, securityContext,
// tolerations, full status). Deterministic: the same index always gives the same document.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace attune::testing {

// A running Burstable pod of Deployment "svc-<index % 97>" in namespace "team-<index % 13>",
// named "svc-<...>-<hash>-<suffix>" and deterministic in `index`. It has one init container
// ("init-config", terminated Completed) and three containers:
//   [0] "app"        requests cpu 250m memory 512Mi, limits cpu 1 memory 1Gi, resizePolicy
//                    cpu NotRequired / memory RestartContainer, 10 env vars, liveness and readiness
//                    probes;
//   [1] "proxy"      requests cpu 100m memory 128Mi, limits memory 256Mi;
//   [2] "log-shipper" requests cpu 50m memory 64Mi, limits cpu 200m memory 128Mi.
// Status: phase Running, qosClass Burstable, five conditions (PodReadyToStartContainers,
// Initialized, Ready, ContainersReady, PodScheduled), each container running since
// 2025-03-01T10:00:00Z; "app" has restartCount 2 and a lastState terminated OOMKilled (exit 137)
// that finished at 2025-03-01T09:59:58Z. About 10 KB once dumped.
nlohmann::json realisticPod(int index = 0);

// {"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"987654321",
// "continue":""},"items":[realisticPod(0), ..., realisticPod(count - 1)]} as compact text.
std::string realisticPodListJson(int count);

}  // namespace attune::testing
