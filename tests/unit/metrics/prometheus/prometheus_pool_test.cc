#include "metrics/prometheus/prometheus_pool.h"

#include <gtest/gtest.h>

#include <set>

#include "core/clock.h"
#include "fake_transport.h"

namespace attune::metrics {
namespace {

using testing::FakeTransport;

constexpr const char* kEmptyVector =
    R"({"status":"success","data":{"resultType":"vector","result":[]}})";

// A pool whose transports answer an empty vector and are kept (by pointer) for inspection, with
// the HTTP options each was built with.
struct PoolFixture {
  SimulatedClock clock{Time{}};
  std::vector<FakeTransport*> transports;
  std::vector<HttpClientOptions> built;
  PrometheusPool pool;

  explicit PoolFixture(PrometheusOptions base = {})
      : pool(std::move(base), clock, [this](const HttpClientOptions& http) -> HttpTransportPtr {
          built.push_back(http);
          auto t = std::make_unique<FakeTransport>([](const HttpRequest&) -> Result<HttpResponse> {
            return testing::jsonResponse(200, kEmptyVector);
          });
          transports.push_back(t.get());
          return t;
        }) {}
};

PrometheusEndpoint endpoint(std::string address, std::string token = "") {
  PrometheusEndpoint e;
  e.address = std::move(address);
  e.bearerToken = std::move(token);
  return e;
}

TEST(PrometheusPool, SameEndpointSharesOneClient) {
  PoolFixture f;
  MetricsSource& a = f.pool.acquire(endpoint("http://a:9090"));
  MetricsSource& b = f.pool.acquire(endpoint("http://a:9090"));
  EXPECT_EQ(&a, &b);
  EXPECT_EQ(f.pool.size(), 1u);
  EXPECT_EQ(f.built.size(), 1u);
}

TEST(PrometheusPool, AnyDifferenceGetsItsOwnClient) {
  PoolFixture f;
  const PrometheusEndpoint base = endpoint("http://a:9090", "token-one");
  PrometheusEndpoint address = base;
  address.address = "http://b:9090";
  PrometheusEndpoint token = base;
  token.bearerToken = "token-two";
  PrometheusEndpoint headers = base;
  headers.headers = {{"X-Scope-OrgID", "team-a"}};
  PrometheusEndpoint params = base;
  params.queryParameters = {{"dedup", "true"}};
  PrometheusEndpoint tls = base;
  tls.insecureSkipVerify = true;
  std::set<MetricsSource*> sources;
  for (const auto& e : {base, address, token, headers, params, tls}) {
    sources.insert(&f.pool.acquire(e));
  }
  EXPECT_EQ(sources.size(), 6u);
  EXPECT_EQ(f.pool.size(), 6u);
}

TEST(PrometheusPool, DropUnusedKeepsOnlyWhatWasAcquiredSinceTheLastCall) {
  PoolFixture f;
  f.pool.acquire(endpoint("http://a:9090"));
  f.pool.acquire(endpoint("http://b:9090"));
  EXPECT_EQ(f.pool.dropUnused(), 0u);  // both were used in this round
  MetricsSource& a = f.pool.acquire(endpoint("http://a:9090"));
  EXPECT_EQ(f.pool.dropUnused(), 1u);  // b was not asked for since
  EXPECT_EQ(f.pool.size(), 1u);
  EXPECT_EQ(&f.pool.acquire(endpoint("http://a:9090")), &a);  // a is kept and reused
  EXPECT_EQ(f.built.size(), 2u);
  EXPECT_EQ(f.pool.dropUnused(), 0u);
  EXPECT_EQ(f.pool.dropUnused(), 1u);  // a round without a: dropped
  EXPECT_EQ(f.pool.size(), 0u);
}

TEST(PrometheusPool, EndpointSettingsReachTheRequest) {
  PrometheusOptions base;
  base.http.bearerTokenFile = "/var/run/flag-token";  // the flag's credentials stay with it
  base.http.basicAuth = BasicAuth{"flag-user", "flag-password"};
  base.http.caFile = "/etc/attune/prometheus-ca.pem";
  base.http.headers = {{"User-Agent", "attune"}};
  PoolFixture f(base);
  PrometheusEndpoint e = endpoint("https://thanos:10902/prefix", "policy-token-123");
  e.headers = {{"X-Scope-OrgID", "team-a"}};
  e.queryParameters = {{"dedup", "true"}, {"partial_response", "a b"}};
  e.insecureSkipVerify = true;
  MetricsSource& source = f.pool.acquire(e);

  ASSERT_EQ(f.built.size(), 1u);
  const HttpClientOptions& http = f.built.front();
  EXPECT_EQ(http.bearerToken, "policy-token-123");
  EXPECT_TRUE(http.bearerTokenFile.empty());
  EXPECT_FALSE(http.basicAuth.has_value());
  EXPECT_TRUE(http.insecureSkipVerify);
  EXPECT_EQ(http.caFile, "/etc/attune/prometheus-ca.pem");
  const std::vector<HttpHeader> headers{{"User-Agent", "attune"}, {"X-Scope-OrgID", "team-a"}};
  EXPECT_EQ(http.headers, headers);

  ASSERT_TRUE(source.nodeCapacity(Time{}).has_value());
  ASSERT_FALSE(f.transports.front()->requests.empty());
  EXPECT_EQ(f.transports.front()->requests.front().url,
            "https://thanos:10902/prefix/api/v1/query?dedup=true&partial_response=a%20b");
}

}  // namespace
}  // namespace attune::metrics
