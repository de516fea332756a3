// PolicyMetricsSources: which source a policy's pass reads, the bearer token from its Secret
// (rotation included), pooling, and failing closed when the Secret cannot be read.
#include "controller/policy_metrics_sources.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/clock.h"
#include "metrics/unavailable_source.h"
#include "sim/cluster/cluster.h"
#include "sim/cluster/cluster_state.h"

namespace attune::controller {
namespace {

constexpr const char* kEmptyVector =
    R"({"status":"success","data":{"resultType":"vector","result":[]}})";

// Answers every request with an empty vector and records it.
class RecordingTransport final : public http::HttpTransport {
 public:
  explicit RecordingTransport(std::vector<http::HttpRequest>& log) : log_(log) {}
  Result<http::HttpResponse> send(const http::HttpRequest& request) override {
    log_.push_back(request);
    return http::HttpResponse{200, kEmptyVector, {}};
  }

 private:
  std::vector<http::HttpRequest>& log_;
};

class PolicyMetricsSourcesTest : public ::testing::Test {
 protected:
  PolicyMetricsSourcesTest()
      : pool_({}, clock_,
              [this](const http::HttpClientOptions& http) -> http::HttpTransportPtr {
                built_.push_back(http);
                return std::make_unique<RecordingTransport>(requests_);
              }),
        sources_(cluster_, fallback_, pool_,
                 [this](std::string_view secret) { secrets_.emplace_back(secret); }) {}

  void storeToken(const std::string& token) {
    if (state_.secrets.find("apps", "prom-token") == nullptr) {
      api::Secret s;
      s.metadata.namespace_ = "apps";
      s.metadata.name = "prom-token";
      s.data["token"] = token;
      ASSERT_TRUE(state_.secrets.create(s));
      return;
    }
    ASSERT_TRUE(state_.secrets.modify("apps", "prom-token", "", [&](api::Secret& s) {
      s.data["token"] = token;
      return Result<sim::Change>(sim::Change::kSpec);
    }));
  }

  static api::AttunePolicy policy(const std::string& name, bool withToken) {
    api::AttunePolicy p;
    p.metadata.namespace_ = "apps";
    p.metadata.name = name;
    api::PrometheusSource prom;
    prom.address = "https://prometheus.monitoring:9090";
    prom.headers = {{"X-Scope-OrgID", "team-a"}};
    if (withToken) prom.bearerTokenSecret = api::SecretKeyRef{"prom-token", "token"};
    p.spec.metricsSource.prometheus = prom;
    return p;
  }

  // The bearer token of the newest pooled client (the HTTP client sends it as
  // "Authorization: Bearer <token>").
  std::string newestToken() const { return built_.empty() ? "" : built_.back().bearerToken; }

  SimulatedClock clock_{Time{}};
  sim::ClusterState state_{clock_};
  sim::Cluster cluster_{state_};
  metrics::UnavailableSource fallback_{Error{ErrorCode::kInternal, "the flag's source", ""}};
  std::vector<http::HttpClientOptions> built_;
  std::vector<http::HttpRequest> requests_;
  metrics::PrometheusPool pool_;
  std::vector<std::string> secrets_;
  PolicyMetricsSources sources_;
};

TEST_F(PolicyMetricsSourcesTest, PolicyWithoutAPrometheusSourceReadsTheFlagsSource) {
  api::AttunePolicy p = policy("web", false);
  p.spec.metricsSource.prometheus.reset();
  EXPECT_EQ(&sources_.sourceFor(p), &fallback_);
  EXPECT_EQ(pool_.size(), 0u);
}

TEST_F(PolicyMetricsSourcesTest, PoliciesWithTheSameEndpointShareOneClient) {
  storeToken("token-of-team-a");
  metrics::MetricsSource& a = sources_.sourceFor(policy("web", true));
  metrics::MetricsSource& b = sources_.sourceFor(policy("api", true));
  EXPECT_EQ(&a, &b);
  EXPECT_NE(&a, &fallback_);
  EXPECT_NE(&sources_.sourceFor(policy("batch", false)), &a);  // no token: another endpoint
  EXPECT_EQ(pool_.size(), 2u);
  ASSERT_EQ(built_.size(), 2u);
  EXPECT_EQ(built_.front().bearerToken, "token-of-team-a");
  EXPECT_EQ(built_.back().bearerToken, "");
  ASSERT_TRUE(a.nodeCapacity(Time{}));
  ASSERT_FALSE(requests_.empty());
  EXPECT_EQ(requests_.back().url, "https://prometheus.monitoring:9090/api/v1/query");
}

TEST_F(PolicyMetricsSourcesTest, RotatedTokenIsUsedFromTheNextPassAndTheOldClientDropped) {
  storeToken("first-token-value");
  metrics::MetricsSource& before = sources_.sourceFor(policy("web", true));
  EXPECT_EQ(sources_.dropUnused(), 0u);
  storeToken("second-token-value");
  metrics::MetricsSource& after = sources_.sourceFor(policy("web", true));
  EXPECT_NE(&before, &after);
  EXPECT_EQ(newestToken(), "second-token-value");
  EXPECT_EQ(sources_.dropUnused(), 1u);  // the client of the old token
  EXPECT_EQ(pool_.size(), 1u);
  // Both tokens were handed over for masking.
  EXPECT_NE(std::ranges::find(secrets_, "first-token-value"), secrets_.end());
  EXPECT_NE(std::ranges::find(secrets_, "second-token-value"), secrets_.end());
}

TEST_F(PolicyMetricsSourcesTest, UnreadableSecretFailsThatPolicyClosedWithTheReason) {
  metrics::MetricsSource& broken = sources_.sourceFor(policy("web", true));  // no Secret yet
  auto read = broken.cpuUsage({}, {});
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(read.error().field, "spec.metricsSource.prometheus.bearerTokenSecret");
  EXPECT_NE(read.error().message.find("cannot read Secret apps/prom-token"), std::string::npos)
      << read.error().message;
  EXPECT_FALSE(broken.nodeCapacity(Time{}));
  EXPECT_EQ(pool_.size(), 0u);
  // Another policy is unaffected.
  EXPECT_TRUE(sources_.sourceFor(policy("batch", false)).nodeCapacity(Time{}));

  // A Secret without the key.
  api::Secret s;
  s.metadata.namespace_ = "apps";
  s.metadata.name = "prom-token";
  s.data["other"] = "x";
  ASSERT_TRUE(state_.secrets.create(s));
  auto missingKey = sources_.sourceFor(policy("web", true)).cpuUsage({}, {});
  ASSERT_FALSE(missingKey);
  EXPECT_EQ(missingKey.error().message, "Secret apps/prom-token has no key \"token\"");

  // Once the token is there, the policy reads its own Prometheus.
  storeToken("now-it-exists");
  EXPECT_TRUE(sources_.sourceFor(policy("web", true)).nodeCapacity(Time{}));
  EXPECT_EQ(newestToken(), "now-it-exists");
}

TEST_F(PolicyMetricsSourcesTest, AuthorizationHeaderValuesAreHandedOverForMasking) {
  api::AttunePolicy p = policy("web", false);
  p.spec.metricsSource.prometheus->headers["Authorization"] = "Basic YXR0dW5lOnMzY3JldA==";
  sources_.sourceFor(p);
  EXPECT_NE(std::ranges::find(secrets_, "Basic YXR0dW5lOnMzY3JldA=="), secrets_.end());
  EXPECT_NE(std::ranges::find(secrets_, "YXR0dW5lOnMzY3JldA=="), secrets_.end());
  EXPECT_EQ(std::ranges::find(secrets_, "team-a"), secrets_.end());  // not a credential
}

}  // namespace
}  // namespace attune::controller
