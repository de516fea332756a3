// The operator's webhook server over real HTTPS on the loopback: AdmissionReviews in and out,
// bad bodies, the metrics.
#include "cli/webhook_endpoints.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "api/k8s/base64.h"
#include "api/k8s/encode.h"
#include "api/k8s/encode_objects.h"
#include "http/http_client.h"
#include "http/http_server.h"
#include "http/tls_server.h"
#include "support/pod_builder.h"

namespace attune::cli {
namespace {

using namespace std::chrono_literals;
using testing::PodBuilder;
using testing::resources;

// A fixed start, far from expiry for the client's wall-clock check.
const Time kNow = std::chrono::sys_days(std::chrono::year(2026) / 1 / 5);

std::optional<std::vector<webhook::ContainerSizing>> webSizing(const api::WorkloadRef& w) {
  if (w != api::WorkloadRef{"shop", "Deployment", "web"}) return std::nullopt;
  return std::vector<webhook::ContainerSizing>{{.container = "app",
                                                .cpuRequest = Millicores(300),
                                                .memoryRequest = Bytes(700LL << 20),
                                                .memoryLimit = Bytes(1536LL << 20),
                                                .removeCpuLimit = true}};
}

std::string podReview(std::string_view replicaSet) {
  const api::Pod pod =
      PodBuilder("shop", "")
          .label("pod-template-hash", "5c8d")
          .owner(api::OwnerReference{"apps/v1", "ReplicaSet", std::string(replicaSet), "u", true})
          .container("app", resources("1", "2Gi", "2", "2Gi"))
          .build();
  return api::encodeAdmissionReviewRequest({.uid = "uid-1",
                                            .kind = {"", "v1", "Pod"},
                                            .resource = {"", "v1", "pods"},
                                            .namespace_ = "shop",
                                            .operation = "CREATE",
                                            .object = api::encodeObjectJson(pod)});
}

class WebhookEndpointsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ca = http::server::generateCertificateAuthority("test-ca", 24h * 365 * 50, kNow);
    ASSERT_TRUE(ca) << ca.error().toString();
    auto serving = http::server::generateServingCertificate(
        *ca, {.commonName = "localhost", .dnsNames = {"localhost"}, .validity = 24h * 365 * 40},
        kNow);
    ASSERT_TRUE(serving) << serving.error().toString();
    auto tls =
        http::server::TlsServerContext::fromPem(serving->certPem, serving->keyPem, ca->certPem);
    ASSERT_TRUE(tls) << tls.error().toString();
    tls_ = std::move(*tls);
    caPem_ = ca->certPem;
    auto server = http::server::HttpServer::start(
        {.host = "127.0.0.1", .port = 0, .tls = tls_.get(), .headerTimeout = 5s},
        [this](const http::server::HttpRequest& r) { return endpoints_.serve(r); });
    ASSERT_TRUE(server) << server.error().toString();
    server_ = std::move(*server);
  }

  http::HttpResponse post(std::string_view path, std::string body) {
    http::CurlHttpClient client({.caData = caPem_});
    auto r = client.send(
        {.method = http::HttpRequest::Method::kPost,
         .url = "https://localhost:" + std::to_string(server_->port()) + std::string(path),
         .body = std::move(body),
         .contentType = "application/json"});
    EXPECT_TRUE(r) << r.error().toString();
    return r.value_or(http::HttpResponse{});
  }

  SimulatedClock clock_{kNow};
  metrics::Registry registry_;
  WebhookEndpoints endpoints_{webSizing, registry_, clock_};
  std::unique_ptr<http::server::TlsServerContext> tls_;
  std::string caPem_;
  std::unique_ptr<http::server::HttpServer> server_;
};

// Every outcome's series is exported at 0 before any request, so that rate() and increase() see
// the first request of each.
TEST_F(WebhookEndpointsTest, EveryOutcomeStartsAtZero) {
  const std::string text = registry_.render();
  for (
      const char* series :
      {R"(attune_webhook_requests_total{webhook="mutate-pods",outcome="sized"} 0)",
       R"(attune_webhook_requests_total{webhook="mutate-pods",outcome="undecodable"} 0)",
       R"(attune_webhook_requests_total{webhook="mutate-pods",outcome="bad_request"} 0)",
       R"(attune_webhook_requests_total{webhook="validate-attunepolicies",outcome="denied"} 0)",
       R"(attune_webhook_requests_total{webhook="validate-attunepolicies",outcome="bad_request"} 0)"}) {
    EXPECT_NE(text.find(series), std::string::npos) << series << "\n" << text;
  }
}

TEST_F(WebhookEndpointsTest, MutatePodsAnswersWithTheSizingPatch) {
  const auto r = post("/mutate-pods", podReview("web-5c8d"));
  ASSERT_EQ(r.status, 200) << r.body;
  const auto review = nlohmann::json::parse(r.body);
  EXPECT_EQ(review["apiVersion"], "admission.k8s.io/v1");
  EXPECT_EQ(review["response"]["uid"], "uid-1");
  EXPECT_EQ(review["response"]["allowed"], true);
  EXPECT_EQ(review["response"]["patchType"], "JSONPatch");
  const auto patch =
      nlohmann::json::parse(*api::base64Decode(review["response"]["patch"].get<std::string>()));
  EXPECT_EQ(patch[0]["path"], "/spec/containers/0/resources");
  EXPECT_EQ(patch[0]["value"]["requests"]["cpu"], "300m");
  EXPECT_FALSE(patch[0]["value"]["limits"].contains("cpu"));
  EXPECT_NE(registry_.render().find(
                R"(attune_webhook_requests_total{webhook="mutate-pods",outcome="sized"} 1)"),
            std::string::npos)
      << registry_.render();
  EXPECT_NE(
      registry_.render().find(
          R"(attune_webhook_validation_total{operation="pod-initial-sizing",result="allowed"} 1)"),
      std::string::npos)
      << registry_.render();
  EXPECT_NE(registry_.render().find(
                R"(attune_webhook_duration_seconds_count{operation="pod-initial-sizing"} 1)"),
            std::string::npos)
      << registry_.render();
}

TEST_F(WebhookEndpointsTest, APodWithoutSizingIsAllowedUnchanged) {
  const auto r = post("/mutate-pods", podReview("api-5c8d"));
  ASSERT_EQ(r.status, 200) << r.body;
  const auto review = nlohmann::json::parse(r.body);
  EXPECT_EQ(review["response"]["allowed"], true);
  EXPECT_FALSE(review["response"].contains("patch"));
  EXPECT_NE(registry_.render().find(R"(webhook="mutate-pods",outcome="no_sizing"} 1)"),
            std::string::npos);
}

TEST_F(WebhookEndpointsTest, AnInvalidPolicyIsDeniedWithItsFieldPaths) {
  const std::string policy = R"({"apiVersion": "attune.io/v1alpha1", "kind": "AttunePolicy",
    "metadata": {"name": "web", "namespace": "shop"},
    "spec": {"targetRef": {"kind": "Deployment", "name": "web"},
             "cpu": {"minAllowed": "2", "maxAllowed": "1"}}})";
  const auto r = post(
      "/validate-attunepolicies",
      api::encodeAdmissionReviewRequest({.uid = "uid-2",
                                         .kind = {"attune.io", "v1alpha1", "AttunePolicy"},
                                         .resource = {"attune.io", "v1alpha1", "attunepolicies"},
                                         .name = "web",
                                         .namespace_ = "shop",
                                         .operation = "CREATE",
                                         .object = policy}));
  ASSERT_EQ(r.status, 200) << r.body;
  const auto review = nlohmann::json::parse(r.body);
  EXPECT_EQ(review["response"]["allowed"], false);
  EXPECT_EQ(review["response"]["status"]["code"], 422);
  EXPECT_NE(review["response"]["status"]["message"].get<std::string>().find(
                "spec.cpu.minAllowed: must be at most maxAllowed"),
            std::string::npos);
  EXPECT_NE(registry_.render().find(R"(webhook="validate-attunepolicies",outcome="denied"} 1)"),
            std::string::npos);
  EXPECT_NE(
      registry_.render().find(
          R"(attune_webhook_validation_total{operation="validate_create",result="rejected"} 1)"),
      std::string::npos)
      << registry_.render();
}

TEST_F(WebhookEndpointsTest, ABodyThatIsNotAReviewIs400WithTheReason) {
  auto r = post("/mutate-pods", "not json");
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("not an admission.k8s.io/v1 AdmissionReview"), std::string::npos);
  r = post("/mutate-pods", R"({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"})");
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("has no request"), std::string::npos);
  EXPECT_NE(registry_.render().find(R"(webhook="mutate-pods",outcome="bad_request"} 2)"),
            std::string::npos);
}

// The latency histogram counts from the review's first byte: a review that took 2 s to arrive
// is a 2 s answer, as the API server's timeoutSeconds sees it.
TEST_F(WebhookEndpointsTest, TheLatencyIncludesTheTimeTheReviewTookToArrive) {
  http::server::HttpRequest request;
  request.method = "POST";
  request.path = "/mutate-pods";
  request.body = podReview("web-5c8d");
  request.receiveTime = 2s;
  EXPECT_EQ(endpoints_.serve(request).status, 200);
  const std::string text = registry_.render();
  EXPECT_NE(
      text.find(
          R"(attune_webhook_request_duration_seconds_bucket{webhook="mutate-pods",le="1"} 0)"),
      std::string::npos)
      << text;
  EXPECT_NE(
      text.find(
          R"(attune_webhook_request_duration_seconds_bucket{webhook="mutate-pods",le="2.5"} 1)"),
      std::string::npos)
      << text;
}

TEST_F(WebhookEndpointsTest, OtherPathsAndMethods) {
  EXPECT_EQ(post("/other", "{}").status, 404);
  http::server::HttpRequest get;
  get.method = "GET";
  get.path = "/mutate-pods";
  EXPECT_EQ(endpoints_.serve(get).status, 405);
}

}  // namespace
}  // namespace attune::cli
