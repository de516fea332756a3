#include "core/quantity.h"

#include <gtest/gtest.h>

#include <string>

namespace attune {
namespace {

struct CanonicalCase {
  const char* input;
  const char* canonical;
};

// Input → the string the API server returns for it (k8s.io/apimachinery semantics).
class QuantityCanonicalTest : public ::testing::TestWithParam<CanonicalCase> {};

TEST_P(QuantityCanonicalTest, ParsesAndFormatsCanonically) {
  const auto& c = GetParam();
  auto q = Quantity::parse(c.input);
  ASSERT_TRUE(q.has_value()) << c.input << ": " << q.error().toString();
  EXPECT_EQ(q->toString(), c.canonical) << c.input;
  // The canonical form parses back to the same value and formats identically.
  auto again = Quantity::parse(q->toString());
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(*again, *q);
  EXPECT_EQ(again->toString(), c.canonical);
}

TEST_P(QuantityCanonicalTest, NegativeAndExplicitPlusMirrorThePositiveValue) {
  const auto& c = GetParam();
  auto pos = Quantity::parse(std::string("+") + c.input);
  auto neg = Quantity::parse(std::string("-") + c.input);
  ASSERT_TRUE(pos.has_value() && neg.has_value()) << c.input;
  EXPECT_EQ(pos->toString(), c.canonical);
  EXPECT_EQ(neg->nanos(), -pos->nanos());
  if (!pos->isZero()) {
    EXPECT_EQ(neg->toString(), std::string("-") + c.canonical);
  } else {
    EXPECT_EQ(neg->toString(), "0");  // never "-0"
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, QuantityCanonicalTest,
    ::testing::Values(
        // Zero in every notation.
        CanonicalCase{"0", "0"}, CanonicalCase{"0n", "0"}, CanonicalCase{"0u", "0"},
        CanonicalCase{"0m", "0"}, CanonicalCase{"0Ki", "0"}, CanonicalCase{"0k", "0"},
        CanonicalCase{"0Mi", "0"}, CanonicalCase{"0M", "0"}, CanonicalCase{"0Gi", "0"},
        CanonicalCase{"0G", "0"}, CanonicalCase{"0Ti", "0"}, CanonicalCase{"0T", "0"},
        CanonicalCase{"0e3", "0"}, CanonicalCase{"000", "0"},
        // Every binary suffix.
        CanonicalCase{"1Ki", "1Ki"}, CanonicalCase{"8Ki", "8Ki"}, CanonicalCase{"7Mi", "7Mi"},
        CanonicalCase{"6Gi", "6Gi"}, CanonicalCase{"5Ti", "5Ti"}, CanonicalCase{"4Pi", "4Pi"},
        CanonicalCase{"3Ei", "3Ei"}, CanonicalCase{"100Ti", "100Ti"},
        CanonicalCase{"1024Mi", "1Gi"}, CanonicalCase{"1536Mi", "1536Mi"},
        CanonicalCase{"1.5Gi", "1536Mi"}, CanonicalCase{"0.5Mi", "512Ki"},
        CanonicalCase{"1025Ki", "1025Ki"}, CanonicalCase{"0.5Ki", "512"},
        CanonicalCase{"1.5Ki", "1536"}, CanonicalCase{"100.035Ki", "102435840m"},
        CanonicalCase{".001Ki", "1024m"}, CanonicalCase{".000001Ki", "1024u"},
        CanonicalCase{".000000001Ki", "1024n"}, CanonicalCase{".000000000001Ki", "2n"},
        // Every decimal SI suffix.
        CanonicalCase{"5n", "5n"}, CanonicalCase{"4u", "4u"}, CanonicalCase{"3m", "3m"},
        CanonicalCase{"9", "9"}, CanonicalCase{"8k", "8k"}, CanonicalCase{"50k", "50k"},
        CanonicalCase{"7M", "7M"}, CanonicalCase{"6G", "6G"}, CanonicalCase{"5T", "5T"},
        CanonicalCase{"40T", "40T"}, CanonicalCase{"300T", "300T"}, CanonicalCase{"2P", "2P"},
        CanonicalCase{"1E", "1E"}, CanonicalCase{"1000M", "1G"}, CanonicalCase{"1000m", "1"},
        CanonicalCase{"1500m", "1500m"}, CanonicalCase{"100.035k", "100035"},
        CanonicalCase{"10.035M", "10035k"}, CanonicalCase{"1080m", "1080m"},
        CanonicalCase{"1.08", "1080m"}, CanonicalCase{"1080000000n", "1080m"},
        CanonicalCase{"1000u", "1m"}, CanonicalCase{"0.001T", "1G"},
        // Decimal exponents keep their notation.
        CanonicalCase{"1E-3", "1e-3"}, CanonicalCase{"1e3", "1e3"}, CanonicalCase{"1E6", "1e6"},
        CanonicalCase{"1e9", "1e9"}, CanonicalCase{"1E12", "1e12"}, CanonicalCase{"1e15", "1e15"},
        CanonicalCase{"1E18", "1e18"}, CanonicalCase{"1e14", "100e12"},
        CanonicalCase{"1.2e3", "1200"}, CanonicalCase{"1.3E+6", "1300e3"},
        CanonicalCase{".001e12", "1e9"}, CanonicalCase{"0.001e0", "1e-3"},
        CanonicalCase{"1000e-12", "1e-9"}, CanonicalCase{"80e-3", "80e-3"},
        CanonicalCase{"0.5e0", "500e-3"},
        // Floating-point lookalikes.
        CanonicalCase{"0.001", "1m"}, CanonicalCase{"0.0005k", "500m"},
        CanonicalCase{"0.5", "500m"}, CanonicalCase{".001", "1m"}, CanonicalCase{"1.", "1"},
        CanonicalCase{"1.G", "1G"}, CanonicalCase{"9.01", "9010m"},
        CanonicalCase{"6.987654321G", "6987654321"}, CanonicalCase{"2.5P", "2500T"},
        // Values finer than a nano-unit round up (away from zero).
        CanonicalCase{"3.001n", "4n"}, CanonicalCase{"1.1E-9", "2e-9"},
        CanonicalCase{"0.0000000001", "1n"}, CanonicalCase{"0.0000000005", "1n"},
        CanonicalCase{"0.5e-9", "1e-9"}, CanonicalCase{"0.9n", "1n"},
        CanonicalCase{"0.00000012345", "124n"}, CanonicalCase{"1e-50", "1e-9"},
        CanonicalCase{"1.00000000000000000001", "1000000001n"},
        // Largest representable magnitudes.
        CanonicalCase{"9223372036854775807", "9223372036854775807"}, CanonicalCase{"7Ei", "7Ei"},
        CanonicalCase{"9.2E", "9200P"}));

struct ErrorCase {
  const char* input;
  ErrorCode code;
  const char* messagePart;
};

class QuantityErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(QuantityErrorTest, RejectsWithClearMessage) {
  const auto& c = GetParam();
  auto q = Quantity::parse(c.input);
  ASSERT_FALSE(q.has_value()) << c.input << " parsed as " << q->toString();
  EXPECT_EQ(q.error().code, c.code) << c.input;
  EXPECT_NE(q.error().message.find(c.messagePart), std::string::npos)
      << c.input << ": " << q.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    Table, QuantityErrorTest,
    ::testing::Values(ErrorCase{"", ErrorCode::kInvalidArgument, "empty"},
                      ErrorCase{"1.1.M", ErrorCode::kInvalidArgument, "unknown suffix \".M\""},
                      ErrorCase{"1+1.0M", ErrorCode::kInvalidArgument, "unknown suffix"},
                      ErrorCase{"0.1mi", ErrorCode::kInvalidArgument, "unknown suffix \"mi\""},
                      ErrorCase{"0.1am", ErrorCode::kInvalidArgument, "unknown suffix"},
                      ErrorCase{"aoeu", ErrorCode::kInvalidArgument, "expected a number"},
                      ErrorCase{".5i", ErrorCode::kInvalidArgument, "unknown suffix \"i\""},
                      ErrorCase{"1i", ErrorCode::kInvalidArgument, "unknown suffix"},
                      ErrorCase{"-3.01i", ErrorCode::kInvalidArgument, "unknown suffix"},
                      ErrorCase{"-3.01e-", ErrorCode::kInvalidArgument, "unknown suffix \"e-\""},
                      ErrorCase{"1e", ErrorCode::kInvalidArgument, "unknown suffix \"e\""},
                      ErrorCase{"1K", ErrorCode::kInvalidArgument, "unknown suffix \"K\""},
                      ErrorCase{"1KI", ErrorCode::kInvalidArgument, "unknown suffix"},
                      ErrorCase{"1Ee3", ErrorCode::kInvalidArgument, "unknown suffix"},
                      ErrorCase{"1e4294967297", ErrorCode::kInvalidArgument, "unknown suffix"},
                      ErrorCase{" 1", ErrorCode::kInvalidArgument, "expected a number"},
                      ErrorCase{"1 ", ErrorCode::kInvalidArgument, "unknown suffix \" \""},
                      ErrorCase{"--1", ErrorCode::kInvalidArgument, "expected a number"},
                      ErrorCase{".", ErrorCode::kInvalidArgument, "expected a number"},
                      ErrorCase{"-", ErrorCode::kInvalidArgument, "expected a number"},
                      ErrorCase{"Ki", ErrorCode::kInvalidArgument, "expected a number"},
                      ErrorCase{"1,5", ErrorCode::kInvalidArgument, "unknown suffix"},
                      // Overflow: the API server silently caps these; we refuse them.
                      ErrorCase{"9223372036854775808", ErrorCode::kOutOfRange, "exceeds 2^63-1"},
                      ErrorCase{"9Ei", ErrorCode::kOutOfRange, "exceeds"},
                      ErrorCase{"8Ei", ErrorCode::kOutOfRange, "exceeds"},
                      ErrorCase{"9223372036854775807Ki", ErrorCode::kOutOfRange, "exceeds"},
                      ErrorCase{"12E", ErrorCode::kOutOfRange, "exceeds"},
                      ErrorCase{"1e19", ErrorCode::kOutOfRange, "exceeds"},
                      ErrorCase{"1e999999999", ErrorCode::kOutOfRange, "exceeds"},
                      ErrorCase{"-1e19", ErrorCode::kOutOfRange, "exceeds"},
                      ErrorCase{"123456789012345678901234567890123456789", ErrorCode::kOutOfRange,
                                "significant digits"}));

TEST(QuantityTest, FormatIsRemembered) {
  EXPECT_EQ(Quantity::parse("1Gi")->format(), QuantityFormat::kBinarySI);
  EXPECT_EQ(Quantity::parse("1G")->format(), QuantityFormat::kDecimalSI);
  EXPECT_EQ(Quantity::parse("1e9")->format(), QuantityFormat::kDecimalExponent);
  EXPECT_EQ(Quantity::parse("1")->format(), QuantityFormat::kDecimalSI);
}

TEST(QuantityTest, ComparesByValueAcrossNotations) {
  EXPECT_EQ(*Quantity::parse("1"), *Quantity::parse("1000m"));
  EXPECT_EQ(*Quantity::parse("1Ki"), *Quantity::parse("1024"));
  EXPECT_EQ(*Quantity::parse("1e3"), *Quantity::parse("1k"));
  EXPECT_LT(*Quantity::parse("50m"), *Quantity::parse("100m"));
  EXPECT_GT(*Quantity::parse("10000T"), *Quantity::parse("100Gi"));
}

TEST(QuantityTest, CpuRoundsUpToWholeMillicores) {
  EXPECT_EQ(parseCpu("250m")->value(), 250);
  EXPECT_EQ(parseCpu("1.5")->value(), 1500);
  EXPECT_EQ(parseCpu("2")->value(), 2000);
  EXPECT_EQ(parseCpu("0.0001")->value(), 1);  // 0.1m rounds up, never down to zero
  EXPECT_EQ(parseCpu("1n")->value(), 1);
  EXPECT_EQ(parseCpu("100500u")->value(), 101);
  EXPECT_EQ(parseCpu("100000u")->value(), 100);
  EXPECT_EQ(parseCpu("0")->value(), 0);
  EXPECT_EQ(parseCpu("1e-3")->value(), 1);
  EXPECT_EQ(parseCpu("1k")->value(), 1'000'000);
  EXPECT_EQ(Quantity::parse("-1.0001m")->toMillicores().value(), -2);  // away from zero
}

TEST(QuantityTest, MemoryRoundsUpToWholeBytes) {
  EXPECT_EQ(parseMemory("512Mi")->value(), 512LL << 20);
  EXPECT_EQ(parseMemory("1G")->value(), 1'000'000'000);
  EXPECT_EQ(parseMemory("1e9")->value(), 1'000'000'000);
  EXPECT_EQ(parseMemory("1.5Gi")->value(), 1536LL << 20);
  EXPECT_EQ(parseMemory("100m")->value(), 1);  // 0.1 byte is still some memory
  EXPECT_EQ(parseMemory("7Ei")->value(), 7LL << 60);
}

TEST(QuantityTest, ResourceParsersRejectNegativeAndOverflow) {
  auto neg = parseCpu("-100m");
  ASSERT_FALSE(neg.has_value());
  EXPECT_NE(neg.error().message.find("must not be negative"), std::string::npos);
  EXPECT_FALSE(parseMemory("-1Gi").has_value());
  auto big = parseCpu("9223372036854775807");  // fits as a quantity, not in millicores
  ASSERT_FALSE(big.has_value());
  EXPECT_EQ(big.error().code, ErrorCode::kOutOfRange);
  EXPECT_FALSE(parseCpu("garbage").has_value());
}

TEST(QuantityTest, FormatsResourceAmountsCanonically) {
  using namespace literals;
  EXPECT_EQ(formatCpu(1500_m), "1500m");
  EXPECT_EQ(formatCpu(2000_m), "2");
  EXPECT_EQ(formatCpu(0_m), "0");
  EXPECT_EQ(formatCpu(1_m), "1m");
  EXPECT_EQ(formatMemory(512_Mi), "512Mi");
  EXPECT_EQ(formatMemory(1_Gi), "1Gi");
  EXPECT_EQ(formatMemory(Bytes(1000)), "1k");  // below 1Ki the API server uses decimal SI
  EXPECT_EQ(formatMemory(Bytes(1'000'000)), "1000000");
  EXPECT_EQ(formatMemory(Bytes(3 * 1024)), "3Ki");
}

TEST(QuantityTest, FromNanosClampsAndKeepsFormat) {
  Quantity q = Quantity::fromNanos(1500, QuantityFormat::kDecimalExponent);
  EXPECT_EQ(q.toString(), "1500e-9");
  Quantity b = Quantity::fromBytes(Bytes(2048), QuantityFormat::kBinarySI);
  EXPECT_EQ(b.toString(), "2Ki");
  Quantity d = Quantity::fromBytes(Bytes(2048), QuantityFormat::kDecimalSI);
  EXPECT_EQ(d.toString(), "2048");
}

}  // namespace
}  // namespace attune
