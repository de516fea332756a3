// The simulated API server's webhook calls against a real HTTPS webhook on the loopback: rules,
// selectors, failurePolicy, timeout, caBundle verification, the JSONPatch applied, refusals.
#include "sim/serve/admission_dispatch.h"

#include <gtest/gtest.h>

#include <atomic>
#include <nlohmann/json.hpp>

#include "api/k8s/base64.h"
#include "api/k8s/decode.h"
#include "api/k8s/encode.h"
#include "http/http_server.h"
#include "http/tls_server.h"

namespace attune::sim::serve {
namespace {

using namespace std::chrono_literals;

const Time kNow = std::chrono::sys_days(std::chrono::year(2026) / 1 / 5);
constexpr std::string_view kPod =
    R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"shop"},)"
    R"("spec":{"containers":[{"name":"app","image":"x"}]}})";

// A webhook on 127.0.0.1 answering every review with `answer` (the response's uid is filled).
class LoopbackWebhook {
 public:
  LoopbackWebhook() {
    auto tls = http::server::TlsServerContext::generate(kNow);
    EXPECT_TRUE(tls);
    tls_ = std::move(*tls);
    auto server = http::server::HttpServer::start(
        {.host = "127.0.0.1", .port = 0, .tls = tls_.get()},
        [this](const http::server::HttpRequest& r) {
          ++calls_;
          auto review = api::decodeAdmissionReview(r.body);
          api::AdmissionResponse response = answer;
          response.uid = review && review->request ? review->request->uid : "";
          http::server::HttpResponse out;
          out.body = api::encodeAdmissionReviewResponse(response);
          return out;
        });
    EXPECT_TRUE(server);
    server_ = std::move(*server);
  }

  api::WebhookConfiguration mutating(std::string_view failurePolicy = "Fail") const {
    api::WebhookConfiguration c{.kind = api::WebhookConfigurationKind::kMutating};
    c.metadata.name = "sizing";
    c.webhooks.push_back(
        {.name = "pods.attune.io",
         .url = "https://localhost:" + std::to_string(server_->port()) + "/mutate-pods",
         .caBundle = api::base64Encode(tls_->caPem()),
         .rules = {{.operations = {"CREATE"},
                    .apiGroups = {""},
                    .apiVersions = {"v1"},
                    .resources = {"pods"}}},
         .failurePolicy = std::string(failurePolicy),
         .timeoutSeconds = 2});
    return c;
  }
  int calls() const { return calls_; }

  api::AdmissionResponse answer{.allowed = true};

 private:
  std::unique_ptr<http::server::TlsServerContext> tls_;
  std::unique_ptr<http::server::HttpServer> server_;
  std::atomic<int> calls_{0};
};

AdmissionCall podCreate() {
  return {.request = {.uid = "u1",
                      .kind = {"", "v1", "Pod"},
                      .resource = {"", "v1", "pods"},
                      .namespace_ = "shop",
                      .operation = "CREATE",
                      .object = std::string(kPod)},
          .objectLabels = {{"app", "web"}},
          .namespaceLabels = {{"kubernetes.io/metadata.name", "shop"}}};
}

const ServiceHost kLoopback = [](const api::WebhookService&) { return "127.0.0.1"; };

TEST(AdmissionDispatch, TheJsonPatchIsApplied) {
  LoopbackWebhook webhook;
  webhook.answer.patch = R"([{"op":"add","path":"/metadata/labels","value":{"sized":"yes"}}])";
  webhook.answer.patchType = "JSONPatch";
  const std::vector<api::WebhookConfiguration> configs = {webhook.mutating()};
  const AdmissionVerdict v = runAdmission(configs, podCreate(), kLoopback);
  ASSERT_TRUE(v.allowed) << (v.status ? v.status->message : "");
  EXPECT_EQ(nlohmann::json::parse(v.object)["metadata"]["labels"]["sized"], "yes");
  EXPECT_EQ(webhook.calls(), 1);
}

TEST(AdmissionDispatch, RulesAndSelectorsDecideWhetherItIsCalled) {
  LoopbackWebhook webhook;
  auto config = webhook.mutating();
  AdmissionCall update = podCreate();
  update.request.operation = "UPDATE";
  EXPECT_FALSE(webhookMatches(config.webhooks[0], update));
  config.webhooks[0].namespaceSelector = api::LabelSelector{
      .matchLabels = {}, .matchExpressions = {{"kubernetes.io/metadata.name", "NotIn", {"shop"}}}};
  EXPECT_FALSE(webhookMatches(config.webhooks[0], podCreate()));
  config.webhooks[0].namespaceSelector.reset();
  config.webhooks[0].objectSelector =
      api::LabelSelector{.matchLabels = {}, .matchExpressions = {{"app", "NotIn", {"web"}}}};
  EXPECT_FALSE(webhookMatches(config.webhooks[0], podCreate()));
  config.webhooks[0].objectSelector.reset();
  EXPECT_TRUE(webhookMatches(config.webhooks[0], podCreate()));
  config.webhooks[0].rules[0].resources = {"*"};
  EXPECT_TRUE(webhookMatches(config.webhooks[0], podCreate()));
  const std::vector<api::WebhookConfiguration> configs = {webhook.mutating()};
  runAdmission(configs, update, kLoopback);
  EXPECT_EQ(webhook.calls(), 0);
}

TEST(AdmissionDispatch, ARefusalNamesTheWebhook) {
  LoopbackWebhook webhook;
  webhook.answer.allowed = false;
  webhook.answer.status = api::ApiStatus{.status = "Failure",
                                         .message = "spec.cpu.minAllowed: too big",
                                         .reason = "Invalid",
                                         .code = 422};
  auto config = webhook.mutating();
  config.kind = api::WebhookConfigurationKind::kValidating;
  const std::vector<api::WebhookConfiguration> configs = {config};
  const AdmissionVerdict v = runAdmission(configs, podCreate(), kLoopback);
  EXPECT_FALSE(v.allowed);
  ASSERT_TRUE(v.status);
  EXPECT_EQ(v.status->code, 422);
  EXPECT_EQ(
      v.status->message,
      "admission webhook \"pods.attune.io\" denied the request: spec.cpu.minAllowed: too big");
}

TEST(AdmissionDispatch, AnUnreachableOrUntrustedWebhookFollowsTheFailurePolicy) {
  LoopbackWebhook webhook;
  auto untrusted = webhook.mutating("Fail");
  untrusted.webhooks[0].caBundle = api::base64Encode("not a certificate");
  {
    const std::vector<api::WebhookConfiguration> configs = {untrusted};
    const AdmissionVerdict v = runAdmission(configs, podCreate(), kLoopback);
    EXPECT_FALSE(v.allowed);
    ASSERT_TRUE(v.status);
    EXPECT_NE(v.status->message.find("failed calling webhook \"pods.attune.io\""),
              std::string::npos);
  }
  untrusted.webhooks[0].failurePolicy = "Ignore";
  untrusted.webhooks[0].url = "https://127.0.0.1:1/mutate-pods";  // nothing listens
  const std::vector<api::WebhookConfiguration> configs = {untrusted};
  const AdmissionVerdict v = runAdmission(configs, podCreate(), kLoopback);
  EXPECT_TRUE(v.allowed);
  EXPECT_EQ(v.object, kPod);
}

TEST(AdmissionDispatch, AServiceReferenceIsReachedThroughTheServiceHost) {
  LoopbackWebhook webhook;
  auto config = webhook.mutating();
  const std::string url = config.webhooks[0].url;
  const auto port = std::stoi(url.substr(url.rfind(':') + 1));
  config.webhooks[0].url.clear();
  config.webhooks[0].service = api::WebhookService{.namespace_ = "attune-system",
                                                   .name = "attune-webhook",
                                                   .path = "/mutate-pods",
                                                   .port = port};
  const std::vector<api::WebhookConfiguration> configs = {config};
  const AdmissionVerdict v =
      runAdmission(configs, podCreate(), [](const api::WebhookService&) { return "localhost"; });
  EXPECT_TRUE(v.allowed) << (v.status ? v.status->message : "");
  EXPECT_EQ(webhook.calls(), 1);
}

}  // namespace
}  // namespace attune::sim::serve
