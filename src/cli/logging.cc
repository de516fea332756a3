#include "cli/logging.h"

#include <spdlog/logger.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <regex>

#include "http/server_message.h"

namespace attune::cli {
namespace {

constexpr std::size_t kMinSecretLength = 6;
constexpr std::string_view kPemBegin = "-----BEGIN ";
constexpr std::string_view kPemEnd = "-----END ";
constexpr std::string_view kPemDashes = "-----";

std::string lower(std::string_view s) {
  std::string out(s);
  std::ranges::transform(out, out.begin(),
                         [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

void replaceAll(std::string& text, std::string_view what, std::string_view with) {
  for (std::size_t at = text.find(what); at != std::string::npos;
       at = text.find(what, at + with.size())) {
    text.replace(at, what.size(), with);
  }
}

// Replaces every PEM block (BEGIN line through the END line's closing dashes) with kRedacted.
void redactPem(std::string& text) {
  for (std::size_t begin = text.find(kPemBegin); begin != std::string::npos;
       begin = text.find(kPemBegin, begin + kRedacted.size())) {
    std::size_t end = text.find(kPemEnd, begin + kPemBegin.size());
    if (end != std::string::npos) end = text.find(kPemDashes, end + kPemEnd.size());
    end = end == std::string::npos ? text.size() : end + kPemDashes.size();
    text.replace(begin, end - begin, kRedacted);
  }
}

// "Bearer <token>" (any case) and "Basic <base64>".
void redactSchemes(std::string& text) {
  static const std::regex bearer(R"((\b[Bb][Ee][Aa][Rr][Ee][Rr]\s+)[A-Za-z0-9._~+/=\-]+)");
  static const std::regex basic(R"((\bBasic\s+)[A-Za-z0-9+/]{8,}=*)");
  const std::string replacement = "$1" + std::string(kRedacted);
  text = std::regex_replace(text, bearer, replacement);
  text = std::regex_replace(text, basic, replacement);
}

// The password of a URL's userinfo ("https://user:password@host/..."); the user is kept.
void redactUrlPasswords(std::string& text) {
  static const std::regex userinfo(R"(([A-Za-z][A-Za-z0-9+.\-]*://[^/\s:@"']*):[^/\s@"']+@)");
  text = std::regex_replace(text, userinfo, "$1:" + std::string(kRedacted) + "@");
}

// key=value, key: value, "key":"value" with a sensitive key: the value is replaced.
void redactPairs(std::string& text) {
  static const std::regex pair(
      R"re(([A-Za-z0-9_.\-]+)("?\s*[:=]\s*)("(?:[^"\\]|\\.)*"|'[^']*'|[^\s,;&}\[\]"']+))re");
  std::string out;
  auto last = text.cbegin();
  for (std::sregex_iterator it(text.cbegin(), text.cend(), pair), end; it != end; ++it) {
    const std::smatch& m = *it;
    if (!isSensitiveKey(m.str(1))) continue;
    const std::string value = m.str(3);
    if (value == kRedacted || value == "\"" + std::string(kRedacted) + "\"") continue;
    out.append(last, m[3].first);
    const bool quoted = value.size() >= 2 && (value.front() == '"' || value.front() == '\'');
    if (quoted) out += value.front();
    out += kRedacted;
    if (quoted) out += value.front();
    last = m[3].second;
  }
  if (last == text.cbegin()) return;
  out.append(last, text.cend());
  text = std::move(out);
}

std::string quoteIfNeeded(std::string_view value) {
  const bool plain = !value.empty() && std::ranges::none_of(value, [](char c) {
    return c == ' ' || c == '"' || c == '=' || c == '\\' ||
           std::iscntrl(static_cast<unsigned char>(c));
  });
  if (plain) return std::string(value);
  std::string out = "\"";
  for (char c : value) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (std::iscntrl(static_cast<unsigned char>(c))) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string oneLine(std::string text) {
  std::ranges::replace(text, '\n', ' ');
  std::ranges::replace(text, '\r', ' ');
  return text;
}

std::shared_ptr<spdlog::logger> makeLogger(spdlog::sink_ptr sink) {
  sink->set_pattern("%v");
  auto logger = std::make_shared<spdlog::logger>("attune", std::move(sink));
  logger->set_level(spdlog::level::trace);  // Logger filters by its own level
  logger->flush_on(spdlog::level::trace);   // every line reaches the file at once
  return logger;
}

}  // namespace

bool isSensitiveKey(std::string_view key) {
  const std::string k = lower(key);
  for (std::string_view part :
       {"token", "password", "passwd", "secret", "authorization", "credential", "cookie", "private",
        "apikey", "api_key", "api-key", "key-data", "key_data", "keydata"}) {
    if (k.find(part) != std::string::npos) return true;
  }
  return k.ends_with("key");
}

void Redactor::addSecret(std::string_view secret) {
  std::lock_guard lock(mutex_);
  auto add = [&](std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    if (s.size() < kMinSecretLength) return;
    if (std::ranges::find(secrets_, s) == secrets_.end()) secrets_.emplace_back(s);
  };
  add(secret);
  if (secret.find(kPemBegin) != std::string_view::npos) {
    // Each base64 line of the PEM body, so a fragment cannot leak either.
    std::size_t start = 0;
    while (start < secret.size()) {
      std::size_t end = secret.find('\n', start);
      if (end == std::string_view::npos) end = secret.size();
      std::string_view line = secret.substr(start, end - start);
      if (!line.starts_with(kPemDashes) && line.size() >= 16) add(line);
      start = end + 1;
    }
  }
  std::ranges::sort(secrets_,
                    [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
}

std::string Redactor::redact(std::string_view text) const {
  std::string out(text);
  {
    std::lock_guard lock(mutex_);
    for (const std::string& secret : secrets_) replaceAll(out, secret, kRedacted);
  }
  redactPem(out);
  redactSchemes(out);
  redactUrlPasswords(out);
  redactPairs(out);
  return out;
}

void addUrlPassword(Redactor& redactor, std::string_view url) {
  const std::size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return;
  std::string_view authority = url.substr(scheme + 3);
  authority = authority.substr(0, authority.find_first_of("/?#"));
  const std::size_t at = authority.rfind('@');
  if (at == std::string_view::npos) return;
  const std::string_view userinfo = authority.substr(0, at);
  const std::size_t colon = userinfo.find(':');
  if (colon == std::string_view::npos) return;
  const std::string_view password = userinfo.substr(colon + 1);
  redactor.addSecret(password);
  if (auto decoded = http::server::percentDecode(password, false)) redactor.addSecret(*decoded);
}

Result<LogFormat> parseLogFormat(std::string_view text) {
  if (text == "text") return LogFormat::kText;
  if (text == "json") return LogFormat::kJson;
  return fail(ErrorCode::kInvalidArgument, "want text or json, got \"" + std::string(text) + "\"",
              "--log-format");
}

Result<LogLevel> parseLogLevel(std::string_view text) {
  for (LogLevel l : {LogLevel::kDebug, LogLevel::kInfo, LogLevel::kWarn, LogLevel::kError}) {
    if (text == toString(l)) return l;
  }
  return fail(ErrorCode::kInvalidArgument,
              "want debug, info, warn or error, got \"" + std::string(text) + "\"", "--log-level");
}

std::string_view toString(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "debug";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kWarn:
      return "warn";
    case LogLevel::kError:
      return "error";
  }
  return "info";
}

Logger::Logger(LogFormat format, LogLevel level, Clock& clock, const Redactor& redactor)
    : format_(format),
      level_(level),
      clock_(clock),
      redactor_(redactor),
      logger_(makeLogger(std::make_shared<spdlog::sinks::stderr_sink_mt>())) {}

Logger::Logger(LogFormat format, LogLevel level, Clock& clock, const Redactor& redactor,
               std::ostream& out)
    : format_(format),
      level_(level),
      clock_(clock),
      redactor_(redactor),
      logger_(makeLogger(std::make_shared<spdlog::sinks::ostream_sink_mt>(out, true))) {}

Logger::~Logger() = default;

std::string Logger::format(LogLevel level, std::string_view msg,
                           std::span<const LogField> fields) const {
  const std::string ts = formatRfc3339(clock_.now(), 3);
  const std::string text = redactor_.redact(msg);
  auto value = [&](const LogField& f) {
    return isSensitiveKey(f.first) ? std::string(kRedacted) : redactor_.redact(f.second);
  };
  if (format_ == LogFormat::kJson) {
    nlohmann::ordered_json j;
    j["ts"] = ts;
    j["level"] = toString(level);
    j["msg"] = text;
    for (const LogField& f : fields) {
      if (f.first == "ts" || f.first == "level" || f.first == "msg") continue;
      j[f.first] = value(f);
    }
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  std::string level5 = lower(toString(level));
  std::ranges::transform(level5, level5.begin(),
                         [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  level5.resize(5, ' ');
  std::string line = ts + " " + level5 + " " + oneLine(text);
  for (const LogField& f : fields) line += " " + f.first + "=" + quoteIfNeeded(value(f));
  return line;
}

void Logger::logWith(LogLevel level, std::string_view msg, std::span<const LogField> fields) {
  if (level < level_) return;
  const std::string line = format(level, msg, fields);
  logger_->log(level == LogLevel::kError  ? spdlog::level::err
               : level == LogLevel::kWarn ? spdlog::level::warn
               : level == LogLevel::kInfo ? spdlog::level::info
                                          : spdlog::level::debug,
               spdlog::string_view_t(line));
}

}  // namespace attune::cli
