// The shipped alerts on latency quantiles can fire: for every histogram_quantile() alert in
// deploy/components/monitoring/prometheusrule.yaml, the histogram the operator exports has a
// finite bucket above the alert's threshold. (histogram_quantile() never returns more than the
// largest finite bucket's bound: an alert at 30 s over buckets ending at 10 s never fires.)
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <regex>
#include <string>

#include "cli/webhook_endpoints.h"
#include "controller/operator_metrics.h"
#include "core/clock.h"
#include "http/server_message.h"
#include "metrics/exposition/registry.h"
#include "support/shared_dir.h"

namespace attune::cli {
namespace {

// The largest finite `le` of `family`'s buckets in the exposition `text`; 0 when it has none.
double largestFiniteBucket(const std::string& text, const std::string& family) {
  const std::regex bucket(family + R"(_bucket\{[^}]*le="([0-9.e+]+)\")");
  double largest = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), bucket);
       it != std::sregex_iterator(); ++it) {
    largest = std::max(largest, std::stod((*it)[1].str()));
  }
  return largest;
}

TEST(AlertBuckets, EveryQuantileAlertsThresholdLiesInsideItsHistogramsBuckets) {
  SimulatedClock clock{Time{}};
  metrics::Registry registry;
  controller::OperatorMetrics operatorMetrics(registry);
  operatorMetrics.reconcileDuration.observe({"policy", "ns", "p"}, 0.1);
  WebhookEndpoints webhooks([](const api::WorkloadRef&) { return std::nullopt; }, registry, clock);
  http::server::HttpRequest request;
  request.method = "POST";
  request.path = "/mutate-pods";
  request.body = "{}";
  webhooks.serve(request);
  const std::string exposition = registry.render();

  const YAML::Node rule = YAML::LoadFile(
      (testing::sourceDir() / "deploy/components/monitoring/prometheusrule.yaml").string());
  const std::regex quantileAlert(
      R"(histogram_quantile\([\s\S]*rate\((\w+)_bucket[\s\S]*\)\s*>\s*([0-9.]+)\s*$)");
  int checked = 0;
  for (const auto& group : rule["spec"]["groups"]) {
    for (const auto& alert : group["rules"]) {
      const std::string expr = alert["expr"].as<std::string>();
      std::smatch m;
      if (!std::regex_search(expr, m, quantileAlert)) continue;
      ++checked;
      const double threshold = std::stod(m[2].str());
      EXPECT_GT(largestFiniteBucket(exposition, m[1].str()), threshold)
          << alert["alert"].as<std::string>() << ": " << m[1].str();
    }
  }
  EXPECT_EQ(checked, 2);  // AttuneWebhookSlow and AttuneReconcileSlow
}

}  // namespace
}  // namespace attune::cli
