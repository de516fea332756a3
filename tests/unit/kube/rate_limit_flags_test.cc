// parseRateLimit: the controller's --kube-api-qps and --kube-api-burst read into the client's
// token bucket; bad text refused naming the flag; a parsed limit paces requests as given, and a
// negative QPS turns the limit off.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "kube/rate_limiter.h"

namespace attune::kube {
namespace {

using namespace std::chrono_literals;

const Time kStart = *parseRfc3339("2025-01-01T00:00:00Z");

Result<RateLimit> parse(std::string_view qps, std::string_view burst) {
  return parseRateLimit(qps, burst, "--kube-api-qps", "--kube-api-burst");
}

void expectRefused(std::string_view qps, std::string_view burst, const std::string& field,
                   const std::string& message) {
  auto limit = parse(qps, burst);
  ASSERT_FALSE(limit) << qps << " " << burst;
  EXPECT_EQ(limit.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(limit.error().field, field);
  EXPECT_NE(limit.error().message.find(message), std::string::npos) << limit.error().message;
}

TEST(RateLimitFlags, DefaultsAreClientGoStyleNumbers) {
  const RateLimit defaults;
  EXPECT_EQ(defaults.qps, 20.0);
  EXPECT_EQ(defaults.burst, 30);
  auto limit = parse("20", "30");
  ASSERT_TRUE(limit);
  EXPECT_EQ(limit->qps, 20.0);
  EXPECT_EQ(limit->burst, 30);
  limit = parse("0.5", "1");
  ASSERT_TRUE(limit);
  EXPECT_EQ(limit->qps, 0.5);
  EXPECT_EQ(limit->burst, 1);
  limit = parse("-1", "10");
  ASSERT_TRUE(limit);
  EXPECT_EQ(limit->qps, -1.0);
}

TEST(RateLimitFlags, BadTextIsRefusedNamingTheFlag) {
  expectRefused("", "30", "--kube-api-qps", "want a number of requests per second");
  expectRefused("fast", "30", "--kube-api-qps", "got \"fast\"");
  expectRefused("20qps", "30", "--kube-api-qps", "got \"20qps\"");
  expectRefused("nan", "30", "--kube-api-qps", "got \"nan\"");
  expectRefused("inf", "30", "--kube-api-qps", "got \"inf\"");
  expectRefused("1e999", "30", "--kube-api-qps", "got \"1e999\"");
  expectRefused("0", "30", "--kube-api-qps", "must be positive, or negative (-1)");
  expectRefused("20", "0", "--kube-api-burst", "from 1 to 1000000, got \"0\"");
  expectRefused("20", "-3", "--kube-api-burst", "got \"-3\"");
  expectRefused("20", "2.5", "--kube-api-burst", "got \"2.5\"");
  expectRefused("20", "", "--kube-api-burst", "got \"\"");
  expectRefused("20", "1000001", "--kube-api-burst", "got \"1000001\"");
  expectRefused("20", "99999999999", "--kube-api-burst", "got \"99999999999\"");
  expectRefused("-1", "0", "--kube-api-burst", "got \"0\"");
}

TEST(RateLimitFlags, AParsedLimitPacesTheBucket) {
  SimulatedClock clock(kStart);
  auto limit = parse("100", "5");
  ASSERT_TRUE(limit);
  TokenBucket bucket(*limit, clock);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(bucket.acquire(), Duration::zero()) << i;
  EXPECT_EQ(bucket.acquire(), 10ms);
  EXPECT_EQ(clock.now(), kStart + 10ms);

  auto off = parse("-1", "1");
  ASSERT_TRUE(off);
  TokenBucket unlimited(*off, clock);
  for (int i = 0; i < 1000; ++i) EXPECT_TRUE(unlimited.tryAcquire()) << i;
  EXPECT_EQ(unlimited.acquire(), Duration::zero());
  EXPECT_EQ(clock.now(), kStart + 10ms);
}

}  // namespace
}  // namespace attune::kube
