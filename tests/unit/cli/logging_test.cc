// The operator's log lines (text and JSON) and the redaction every line passes.
#include "cli/logging.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "core/clock.h"

namespace attune::cli {
namespace {

constexpr std::string_view kToken = "eyJhbGciOiJSUzI1NiJ9.c2VjcmV0LXRva2Vu.c2lnbmF0dXJl";
constexpr std::string_view kKeyPem =
    "-----BEGIN EC PRIVATE KEY-----\n"
    "MHcCAQEEIBkQ1oW3n0qzS6y3Xc0Jb9r4xKqGm3wLzHn8vYpTq2s8oAoGCCqGSM49\n"
    "AwEHoUQDQgAE7tA9hM3yX1FjvQ1u0cL2cQe9pX4a7l0Jm2k3n4o5p6q7r8s9t0u1\n"
    "-----END EC PRIVATE KEY-----\n";

Time startTime() { return *parseRfc3339("2026-01-05T00:00:00Z"); }

TEST(Redactor, MasksRegisteredSecretsWhereverTheyAppear) {
  Redactor r;
  r.addSecret(kToken);
  const std::string out = r.redact("request failed: GET /api?x=" + std::string(kToken) + " (401)");
  EXPECT_EQ(out.find(kToken), std::string::npos) << out;
  EXPECT_NE(out.find("request failed: GET /api?x=[REDACTED] (401)"), std::string::npos) << out;
}

TEST(Redactor, IgnoresSecretsTooShortToBeSafe) {
  Redactor r;
  r.addSecret("ab");
  r.addSecret("");
  EXPECT_EQ(r.redact("about abc"), "about abc");
}

TEST(Redactor, MasksPemBlocksAndTheirLines) {
  Redactor r;
  const std::string out = r.redact("loaded key " + std::string(kKeyPem) + " ok");
  EXPECT_EQ(out.find("BEGIN"), std::string::npos) << out;
  EXPECT_EQ(out.find("MHcCAQEE"), std::string::npos) << out;
  EXPECT_EQ(out, "loaded key [REDACTED]\n ok");
  // An unterminated block is masked to the end.
  EXPECT_EQ(r.redact("x -----BEGIN CERTIFICATE-----\nMIIB"), "x [REDACTED]");
  // A registered key's lines are masked even outside their block.
  r.addSecret(kKeyPem);
  const std::string line = "AwEHoUQDQgAE7tA9hM3yX1FjvQ1u0cL2cQe9pX4a7l0Jm2k3n4o5p6q7r8s9t0u1";
  EXPECT_EQ(r.redact("fragment " + line), "fragment [REDACTED]");
}

TEST(Redactor, MasksBearerAndBasicCredentials) {
  Redactor r;
  const std::string header = r.redact("Authorization: Bearer abc.def-ghi");
  EXPECT_EQ(header.find("abc.def-ghi"), std::string::npos) << header;
  EXPECT_TRUE(header.starts_with("Authorization: [REDACTED]")) << header;
  EXPECT_EQ(r.redact("sent bearer abc.def-ghi to the server"),
            "sent bearer [REDACTED] to the server");
  EXPECT_EQ(r.redact("header Basic dXNlcjpwYXNzd29yZA=="), "header Basic [REDACTED]");
  EXPECT_EQ(r.redact("a basic check"), "a basic check");
}

TEST(Redactor, MasksThePasswordOfAUrlsUserinfo) {
  Redactor r;
  EXPECT_EQ(r.redact("querying https://attune:s3cr%40t-pw@prom.example:9090/api/v1/query failed"),
            "querying https://attune:[REDACTED]@prom.example:9090/api/v1/query failed");
  EXPECT_EQ(r.redact("url=\"http://u:p4ss@10.0.0.1\""), "url=\"http://u:[REDACTED]@10.0.0.1\"");
  // A user alone, and an address with a port, are left as they are.
  EXPECT_EQ(r.redact("https://attune@prom:9090/x"), "https://attune@prom:9090/x");
  EXPECT_EQ(r.redact("http://10.0.0.1:9090/api"), "http://10.0.0.1:9090/api");
}

TEST(Redactor, AUrlsPasswordIsRegisteredAsWrittenAndDecoded) {
  Redactor r;
  addUrlPassword(r, "https://attune:s3cr%40t-pw@prom.example:9090/prefix");
  EXPECT_EQ(r.redact("it was s3cr@t-pw, or s3cr%40t-pw"), "it was [REDACTED], or [REDACTED]");
  Redactor none;
  addUrlPassword(none, "https://prom.example:9090/a@b");  // no userinfo: nothing registered
  EXPECT_EQ(none.redact("prom.example:9090/a@b"), "prom.example:9090/a@b");
}

TEST(Redactor, MasksValuesOfSensitiveKeys) {
  Redactor r;
  EXPECT_EQ(r.redact("token=abc123 user=bob"), "token=[REDACTED] user=bob");
  EXPECT_EQ(r.redact(R"({"password":"hunter2","name":"x"})"),
            R"({"password":"[REDACTED]","name":"x"})");
  EXPECT_EQ(r.redact("client-key-data: LS0tLS1CRUdJTg=="), "client-key-data: [REDACTED]");
  EXPECT_EQ(r.redact("url?access_token=s3cr3t&x=1"), "url?access_token=[REDACTED]&x=1");
  EXPECT_EQ(r.redact("secret='a b'"), "secret='[REDACTED]'");
  EXPECT_EQ(r.redact("namespace=shop pod=web-1"), "namespace=shop pod=web-1");
}

TEST(Redactor, SensitiveKeys) {
  for (const char* k : {"token", "Token", "bearerToken", "password", "client-key-data",
                        "client-key", "privateKey", "Authorization", "secret", "api_key", "key"}) {
    EXPECT_TRUE(isSensitiveKey(k)) << k;
  }
  for (const char* k : {"namespace", "pod", "holder", "lease", "error", "msg"}) {
    EXPECT_FALSE(isSensitiveKey(k)) << k;
  }
}

TEST(Logger, WritesJsonLinesWithFields) {
  SimulatedClock clock(startTime());
  Redactor redactor;
  std::ostringstream out;
  Logger log(LogFormat::kJson, LogLevel::kInfo, clock, redactor, out);
  log.info("became leader", {{"lease", "attune-system/attune-leader"}, {"identity", "a_1"}});
  log.debug("not written");
  const std::string text = out.str();
  ASSERT_EQ(text.back(), '\n');
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["ts"], "2026-01-05T00:00:00.000Z");
  EXPECT_EQ(j["level"], "info");
  EXPECT_EQ(j["msg"], "became leader");
  EXPECT_EQ(j["lease"], "attune-system/attune-leader");
  EXPECT_EQ(j["identity"], "a_1");
}

TEST(Logger, WritesTextLinesWithQuotedValues) {
  SimulatedClock clock(startTime());
  Redactor redactor;
  std::ostringstream out;
  Logger log(LogFormat::kText, LogLevel::kDebug, clock, redactor, out);
  log.warn("step failed", {{"error", "connection refused"}, {"lease", "l"}});
  EXPECT_EQ(out.str(),
            "2026-01-05T00:00:00.000Z WARN  step failed error=\"connection refused\" lease=l\n");
}

TEST(Logger, RedactsMessagesAndFieldsInBothFormats) {
  SimulatedClock clock(startTime());
  Redactor redactor;
  redactor.addSecret(kToken);
  for (LogFormat format : {LogFormat::kText, LogFormat::kJson}) {
    std::ostringstream out;
    Logger log(format, LogLevel::kInfo, clock, redactor, out);
    log.error("request with " + std::string(kToken), {{"token", "plain-value-without-pattern"},
                                                      {"detail", std::string(kKeyPem)},
                                                      {"header", "Authorization: Bearer xyz.abc"}});
    const std::string text = out.str();
    EXPECT_EQ(text.find(kToken), std::string::npos) << text;
    EXPECT_EQ(text.find("plain-value-without-pattern"), std::string::npos) << text;
    EXPECT_EQ(text.find("BEGIN"), std::string::npos) << text;
    EXPECT_EQ(text.find("xyz.abc"), std::string::npos) << text;
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;
  }
}

TEST(Logger, ParsesFormatAndLevel) {
  EXPECT_EQ(parseLogFormat("json").value(), LogFormat::kJson);
  EXPECT_EQ(parseLogFormat("text").value(), LogFormat::kText);
  EXPECT_EQ(parseLogFormat("yaml").error().field, "--log-format");
  EXPECT_EQ(parseLogLevel("warn").value(), LogLevel::kWarn);
  EXPECT_EQ(parseLogLevel("trace").error().field, "--log-level");
}

}  // namespace
}  // namespace attune::cli
