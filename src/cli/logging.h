// The operator's log: one line per record, as text or JSON, written through spdlog, and a
// redaction layer every line passes before it is written.
//
// Text:  2026-01-05T00:00:00.000Z INFO  pass done policies=3 resizes=1
// JSON:  {"ts":"2026-01-05T00:00:00.000Z","level":"info","msg":"pass done","policies":"3",...}
//
// Redaction (Redactor::redact) masks, in the message and in every field value:
//  - the exact secret strings registered with addSecret (the kubeconfig's token, password,
//    client key), wherever they appear;
//  - PEM blocks ("-----BEGIN ...-----" through the matching END line, or to the end of the text
//    when unterminated);
//  - bearer and basic credentials ("Bearer <x>", "Basic <x>");
//  - the password of a URL's userinfo ("https://user:<x>@host");
//  - the value of any key=value, key: value or "key":"value" pair whose key is sensitive
//    (isSensitiveKey).
// A field whose own name is sensitive is masked whole.
#pragma once

#include <initializer_list>
#include <memory>
#include <mutex>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/clock.h"
#include "core/error.h"

namespace spdlog {
class logger;
}  // namespace spdlog

namespace attune::cli {

inline constexpr std::string_view kRedacted = "[REDACTED]";

// Whether a key names a credential: token, password/passwd, secret, authorization, credential,
// cookie, private, apikey/api_key/api-key, any *key-data, and any key ending in "key" (e.g.
// "client-key", "privateKey"). Case-insensitive.
bool isSensitiveKey(std::string_view key);

// Thread-safe: secrets may be added while other threads log.
class Redactor {
 public:
  // Registers a string that must never be written. Strings shorter than 6 characters are
  // ignored (they would mask ordinary words); a PEM text is registered together with each of its
  // base64 lines.
  void addSecret(std::string_view secret);
  // `text` with every secret, PEM block, credential and sensitive key's value replaced by
  // kRedacted.
  std::string redact(std::string_view text) const;

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> secrets_;  // longest first, so a secret inside another is not split
};

// Registers the password of a URL's userinfo ("https://user:password@host"), as written and
// percent-decoded, with `redactor`. Nothing for a URL without one.
void addUrlPassword(Redactor& redactor, std::string_view url);

enum class LogFormat { kText, kJson };
enum class LogLevel { kDebug, kInfo, kWarn, kError };

// "text" | "json"; kInvalidArgument otherwise.
Result<LogFormat> parseLogFormat(std::string_view text);
// "debug" | "info" | "warn" | "error"; kInvalidArgument otherwise.
Result<LogLevel> parseLogLevel(std::string_view text);
std::string_view toString(LogLevel level);

using LogField = std::pair<std::string, std::string>;

// Writes records at or above its level. Thread-safe (spdlog's locking sink); the clock must be
// thread-safe too (SystemClock) when several threads log. `clock` and `redactor` must outlive the
// logger.
class Logger {
 public:
  // Writes to standard error.
  Logger(LogFormat format, LogLevel level, Clock& clock, const Redactor& redactor);
  // Writes to `out` (tests); `out` must outlive the logger.
  Logger(LogFormat format, LogLevel level, Clock& clock, const Redactor& redactor,
         std::ostream& out);
  ~Logger();
  Logger(const Logger&) = delete;
  Logger& operator=(const Logger&) = delete;

  void log(LogLevel level, std::string_view msg, std::initializer_list<LogField> fields = {}) {
    logWith(level, msg, std::span<const LogField>(fields.begin(), fields.size()));
  }
  // The same, with fields built at run time.
  void logWith(LogLevel level, std::string_view msg, std::span<const LogField> fields);
  void debug(std::string_view msg, std::initializer_list<LogField> fields = {}) {
    log(LogLevel::kDebug, msg, fields);
  }
  void info(std::string_view msg, std::initializer_list<LogField> fields = {}) {
    log(LogLevel::kInfo, msg, fields);
  }
  void warn(std::string_view msg, std::initializer_list<LogField> fields = {}) {
    log(LogLevel::kWarn, msg, fields);
  }
  void error(std::string_view msg, std::initializer_list<LogField> fields = {}) {
    log(LogLevel::kError, msg, fields);
  }

  // The line log() would write (without the newline), redacted; for tests.
  std::string format(LogLevel level, std::string_view msg,
                     std::initializer_list<LogField> fields) const {
    return format(level, msg, std::span<const LogField>(fields.begin(), fields.size()));
  }
  std::string format(LogLevel level, std::string_view msg, std::span<const LogField> fields) const;

 private:
  LogFormat format_;
  LogLevel level_;
  Clock& clock_;
  const Redactor& redactor_;
  std::shared_ptr<spdlog::logger> logger_;
};

}  // namespace attune::cli
