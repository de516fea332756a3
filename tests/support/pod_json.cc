#include "support/pod_json.h"

#include <cstdint>
#include <string>

namespace attune::testing {
namespace {

using Json = nlohmann::json;

std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// `length` deterministic characters from `alphabet`.
std::string token(std::uint64_t seed, int length, std::string_view alphabet) {
  std::string out;
  for (int i = 0; i < length; ++i) {
    seed = mix(seed);
    out += alphabet[seed % alphabet.size()];
  }
  return out;
}

std::string hex(std::uint64_t seed, int length) { return token(seed, length, "0123456789abcdef"); }

std::string uid(std::uint64_t seed) {
  return hex(seed, 8) + "-" + hex(seed + 1, 4) + "-4" + hex(seed + 2, 3) + "-a" + hex(seed + 3, 3) +
         "-" + hex(seed + 4, 12);
}

// One managedFields entry, as the kubelet writes for the status subresource.
Json fieldsEntry(const char* manager, const char* operation, const char* subresource) {
  Json entry = {{"manager", manager},
                {"operation", operation},
                {"apiVersion", "v1"},
                {"time", "2025-03-01T10:00:02Z"},
                {"fieldsType", "FieldsV1"}};
  if (*subresource != '\0') entry["subresource"] = subresource;
  entry["fieldsV1"] = {{"f:status",
                        {{"f:conditions",
                          {{"k:{\"type\":\"ContainersReady\"}",
                            {{".", Json::object()},
                             {"f:lastProbeTime", Json::object()},
                             {"f:lastTransitionTime", Json::object()},
                             {"f:status", Json::object()},
                             {"f:type", Json::object()}}}}},
                         {"f:containerStatuses", Json::object()},
                         {"f:hostIP", Json::object()},
                         {"f:phase", Json::object()},
                         {"f:podIP", Json::object()},
                         {"f:startTime", Json::object()}}}};
  return entry;
}

Json probe(const char* path, int port, int period) {
  return {{"httpGet", {{"path", path}, {"port", port}, {"scheme", "HTTP"}}},
          {"initialDelaySeconds", 5},
          {"timeoutSeconds", 1},
          {"periodSeconds", period},
          {"successThreshold", 1},
          {"failureThreshold", 3}};
}

Json resources(const char* reqCpu, const char* reqMem, const char* limCpu, const char* limMem) {
  Json r = {{"requests", {{"cpu", reqCpu}, {"memory", reqMem}}}, {"limits", Json::object()}};
  if (*limCpu != '\0') r["limits"]["cpu"] = limCpu;
  if (*limMem != '\0') r["limits"]["memory"] = limMem;
  return r;
}

Json serviceAccountMount() {
  return {{"name", "kube-api-access"},
          {"mountPath", "/var/run/secrets/kubernetes.io/serviceaccount"},
          {"readOnly", true}};
}

Json volumeMounts() {
  return Json::array({{{"name", "config"}, {"mountPath", "/etc/app"}, {"readOnly", true}},
                      {{"name", "tmp"}, {"mountPath", "/tmp"}},
                      serviceAccountMount()});
}

Json securityContext() {
  return {{"allowPrivilegeEscalation", false},
          {"capabilities", {{"drop", {"ALL"}}}},
          {"readOnlyRootFilesystem", true},
          {"runAsNonRoot", true},
          {"runAsUser", 10001}};
}

Json appContainer(std::uint64_t seed) {
  Json env = Json::array();
  const char* names[] = {"LOG_LEVEL", "HTTP_PORT", "FEATURE_FLAGS",
                         "REGION",    "CACHE_TTL", "OTEL_EXPORTER_OTLP_ENDPOINT"};
  for (int i = 0; i < 6; ++i) {
    env.push_back({{"name", names[i]}, {"value", token(seed + 40 + i, 6 + i * 3, "abcdefgh0123")}});
  }
  env.push_back(
      {{"name", "POD_NAME"},
       {"valueFrom", {{"fieldRef", {{"apiVersion", "v1"}, {"fieldPath", "metadata.name"}}}}}});
  env.push_back(
      {{"name", "POD_NAMESPACE"},
       {"valueFrom", {{"fieldRef", {{"apiVersion", "v1"}, {"fieldPath", "metadata.namespace"}}}}}});
  env.push_back(
      {{"name", "DB_PASSWORD"},
       {"valueFrom", {{"secretKeyRef", {{"name", "db-credentials"}, {"key", "password"}}}}}});
  env.push_back({{"name", "GOMAXPROCS"},
                 {"valueFrom",
                  {{"resourceFieldRef",
                    {{"containerName", "app"}, {"resource", "limits.cpu"}, {"divisor", "1"}}}}}});
  return {{"name", "app"},
          {"image", "registry.example.com/team/app:v1." + std::to_string(seed % 40) + ".3"},
          {"command", {"/app/server"}},
          {"args", {"--config=/etc/app/config.yaml", "--listen=:8080"}},
          {"ports",
           {{{"name", "http"}, {"containerPort", 8080}, {"protocol", "TCP"}},
            {{"name", "grpc"}, {"containerPort", 9090}, {"protocol", "TCP"}},
            {{"name", "metrics"}, {"containerPort", 9102}, {"protocol", "TCP"}}}},
          {"env", std::move(env)},
          {"resources", resources("250m", "512Mi", "1", "1Gi")},
          {"resizePolicy",
           {{{"resourceName", "cpu"}, {"restartPolicy", "NotRequired"}},
            {{"resourceName", "memory"}, {"restartPolicy", "RestartContainer"}}}},
          {"volumeMounts", volumeMounts()},
          {"livenessProbe", probe("/healthz", 8080, 10)},
          {"readinessProbe", probe("/ready", 8080, 5)},
          {"terminationMessagePath", "/dev/termination-log"},
          {"terminationMessagePolicy", "File"},
          {"imagePullPolicy", "IfNotPresent"},
          {"securityContext", securityContext()}};
}

Json simpleContainer(const char* name, const char* image, Json res) {
  return {{"name", name},
          {"image", image},
          {"args", {"--admin-port=9901"}},
          {"ports", {{{"name", "admin"}, {"containerPort", 9901}, {"protocol", "TCP"}}}},
          {"resources", std::move(res)},
          {"volumeMounts", Json::array({serviceAccountMount()})},
          {"readinessProbe", probe("/ready", 9901, 10)},
          {"terminationMessagePath", "/dev/termination-log"},
          {"terminationMessagePolicy", "File"},
          {"imagePullPolicy", "IfNotPresent"},
          {"securityContext", securityContext()}};
}

Json containerStatus(const char* name, const Json& spec, std::uint64_t seed, int restarts) {
  Json status = {
      {"name", name},
      {"state", {{"running", {{"startedAt", "2025-03-01T10:00:00Z"}}}}},
      {"lastState", Json::object()},
      {"ready", true},
      {"restartCount", restarts},
      {"image", spec["image"]},
      {"imageID", "registry.example.com/team/" + std::string(name) + "@sha256:" + hex(seed, 64)},
      {"containerID", "containerd://" + hex(seed + 7, 64)},
      {"started", true},
      {"allocatedResources", spec["resources"]["requests"]},
      {"resources", spec["resources"]}};
  if (restarts > 0) {
    status["lastState"] = {{"terminated",
                            {{"exitCode", 137},
                             {"reason", "OOMKilled"},
                             {"startedAt", "2025-03-01T09:12:40Z"},
                             {"finishedAt", "2025-03-01T09:59:58Z"},
                             {"containerID", "containerd://" + hex(seed + 9, 64)}}}};
  }
  return status;
}

Json condition(const char* type, const char* time) {
  return {
      {"type", type}, {"status", "True"}, {"lastProbeTime", nullptr}, {"lastTransitionTime", time}};
}

}  // namespace

nlohmann::json realisticPod(int index) {
  const std::uint64_t seed = mix(static_cast<std::uint64_t>(index) * 1000003ULL);
  const std::string app = "svc-" + std::to_string(index % 97);
  const std::string hash = token(seed, 10, "bcdfghjklmnpqrstvwxz2456789");
  const std::string name =
      app + "-" + hash + "-" + token(seed + 1, 5, "bcdfghjklmnpqrstvwxz2456789");
  const std::string ns = "team-" + std::to_string(index % 13);

  Json metadata = {{"name", name},
                   {"generateName", app + "-" + hash + "-"},
                   {"namespace", ns},
                   {"uid", uid(seed + 2)},
                   {"resourceVersion", std::to_string(100000000 + index * 7)},
                   {"creationTimestamp", "2025-03-01T09:58:12Z"},
                   {"labels",
                    {{"app", app},
                     {"app.kubernetes.io/name", app},
                     {"app.kubernetes.io/instance", app + "-production"},
                     {"app.kubernetes.io/version", "1." + std::to_string(index % 40) + ".3"},
                     {"app.kubernetes.io/part-of", "storefront"},
                     {"app.kubernetes.io/managed-by", "Helm"},
                     {"pod-template-hash", hash},
                     {"team", ns},
                     {"tier", "backend"},
                     {"environment", "production"}}},
                   {"annotations",
                    {{"prometheus.io/scrape", "true"},
                     {"prometheus.io/port", "9102"},
                     {"prometheus.io/path", "/metrics"},
                     {"kubectl.kubernetes.io/restartedAt", "2025-02-27T14:03:11Z"},
                     {"checksum/config", hex(seed + 3, 64)},
                     {"cluster-autoscaler.kubernetes.io/safe-to-evict", "true"}}},
                   {"ownerReferences",
                    {{{"apiVersion", "apps/v1"},
                      {"kind", "ReplicaSet"},
                      {"name", app + "-" + hash},
                      {"uid", uid(seed + 5)},
                      {"controller", true},
                      {"blockOwnerDeletion", true}}}},
                   {"managedFields", {fieldsEntry("kubelet", "Update", "status")}}};

  Json init = {{"name", "init-config"},
               {"image", "registry.example.com/tools/config-init:2.4.1"},
               {"command", {"/bin/config-init", "--out=/etc/app"}},
               {"resources", resources("50m", "32Mi", "100m", "64Mi")},
               {"volumeMounts", volumeMounts()},
               {"terminationMessagePath", "/dev/termination-log"},
               {"terminationMessagePolicy", "File"},
               {"imagePullPolicy", "IfNotPresent"},
               {"securityContext", securityContext()}};
  Json app0 = appContainer(seed);
  Json proxy = simpleContainer("proxy", "registry.example.com/mesh/proxy:1.31.2",
                               resources("100m", "128Mi", "", "256Mi"));
  Json shipper = simpleContainer("log-shipper", "registry.example.com/obs/shipper:3.0.7",
                                 resources("50m", "64Mi", "200m", "128Mi"));

  Json spec = {
      {"volumes",
       {{{"name", "config"}, {"configMap", {{"name", app + "-config"}, {"defaultMode", 420}}}},
        {{"name", "tmp"}, {"emptyDir", {{"sizeLimit", "256Mi"}}}},
        {{"name", "kube-api-access"},
         {"projected",
          {{"sources",
            {{{"serviceAccountToken", {{"expirationSeconds", 3607}, {"path", "token"}}}},
             {{"configMap",
               {{"name", "kube-root-ca.crt"},
                {"items", {{{"key", "ca.crt"}, {"path", "ca.crt"}}}}}}},
             {{"downwardAPI",
               {{"items",
                 {{{"path", "namespace"},
                   {"fieldRef",
                    {{"apiVersion", "v1"}, {"fieldPath", "metadata.namespace"}}}}}}}}}}},
           {"defaultMode", 420}}}}}},
      {"initContainers", {init}},
      {"containers", {app0, proxy, shipper}},
      {"restartPolicy", "Always"},
      {"terminationGracePeriodSeconds", 30},
      {"dnsPolicy", "ClusterFirst"},
      {"serviceAccountName", app},
      {"serviceAccount", app},
      {"nodeName", "ip-10-0-" + std::to_string(index % 50) + "-17.eu-west-1.compute.internal"},
      {"securityContext", {{"fsGroup", 10001}, {"seccompProfile", {{"type", "RuntimeDefault"}}}}},
      {"affinity",
       {{"podAntiAffinity",
         {{"preferredDuringSchedulingIgnoredDuringExecution",
           {{{"weight", 100},
             {"podAffinityTerm",
              {{"labelSelector", {{"matchLabels", {{"app", app}}}}},
               {"topologyKey", "topology.kubernetes.io/zone"}}}}}}}}}},
      {"schedulerName", "default-scheduler"},
      {"tolerations",
       {{{"key", "node.kubernetes.io/not-ready"},
         {"operator", "Exists"},
         {"effect", "NoExecute"},
         {"tolerationSeconds", 300}},
        {{"key", "node.kubernetes.io/unreachable"},
         {"operator", "Exists"},
         {"effect", "NoExecute"},
         {"tolerationSeconds", 300}}}},
      {"priorityClassName", "production-high"},
      {"priority", 100000},
      {"enableServiceLinks", false},
      {"preemptionPolicy", "PreemptLowerPriority"}};

  Json initStatus = containerStatus("init-config", init, seed + 20, 0);
  initStatus["state"] = {{"terminated",
                          {{"exitCode", 0},
                           {"reason", "Completed"},
                           {"startedAt", "2025-03-01T09:58:20Z"},
                           {"finishedAt", "2025-03-01T09:58:22Z"},
                           {"containerID", "containerd://" + hex(seed + 21, 64)}}}};
  initStatus["ready"] = true;
  initStatus["started"] = false;

  Json status = {
      {"observedGeneration", 1},
      {"phase", "Running"},
      {"conditions",
       {condition("PodReadyToStartContainers", "2025-03-01T09:58:19Z"),
        condition("Initialized", "2025-03-01T09:58:23Z"),
        condition("Ready", "2025-03-01T10:00:02Z"),
        condition("ContainersReady", "2025-03-01T10:00:02Z"),
        condition("PodScheduled", "2025-03-01T09:58:12Z")}},
      {"hostIP", "10.0." + std::to_string(index % 50) + ".17"},
      {"hostIPs", {{{"ip", "10.0." + std::to_string(index % 50) + ".17"}}}},
      {"podIP", "10.1." + std::to_string(index % 250) + "." + std::to_string(index % 200)},
      {"podIPs",
       {{{"ip", "10.1." + std::to_string(index % 250) + "." + std::to_string(index % 200)}}}},
      {"startTime", "2025-03-01T09:58:12Z"},
      {"initContainerStatuses", {initStatus}},
      {"containerStatuses",
       {containerStatus("app", app0, seed + 30, 2), containerStatus("proxy", proxy, seed + 31, 0),
        containerStatus("log-shipper", shipper, seed + 32, 0)}},
      {"qosClass", "Burstable"}};

  return {{"kind", "Pod"},
          {"apiVersion", "v1"},
          {"metadata", std::move(metadata)},
          {"spec", std::move(spec)},
          {"status", std::move(status)}};
}

std::string realisticPodListJson(int count) {
  std::string out =
      R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"987654321","continue":""},"items":[)";
  for (int i = 0; i < count; ++i) {
    if (i > 0) out += ',';
    out += realisticPod(i).dump();
  }
  out += "]}";
  return out;
}

}  // namespace attune::testing
