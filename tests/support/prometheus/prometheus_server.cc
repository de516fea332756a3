#include "support/prometheus/prometheus_server.h"

#include <crypt.h>

#include <fstream>
#include <sstream>

#include "core/clock.h"
#include "http/http_client.h"

namespace attune::testing {
namespace {

constexpr int kReadyAttempts = 300;
constexpr auto kReadyPoll = std::chrono::milliseconds(100);

std::string tail(const std::filesystem::path& log) {
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  return s.size() > 2000 ? s.substr(s.size() - 2000) : s;
}

bool writeFile(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return out.good();
}

// A bcrypt hash of `password` ("$2b$..."), as Prometheus's basic_auth_users wants it.
Result<std::string> bcryptHash(const std::string& password) {
  char setting[CRYPT_GENSALT_OUTPUT_SIZE];
  if (crypt_gensalt_rn("$2b$", 10, nullptr, 0, setting, sizeof setting) == nullptr) {
    return fail(ErrorCode::kInternal, "crypt_gensalt_rn cannot make a bcrypt salt");
  }
  crypt_data data{};
  const char* hash = crypt_r(password.c_str(), setting, &data);
  if (hash == nullptr || hash[0] == '*') {
    return fail(ErrorCode::kInternal, "crypt_r cannot make a bcrypt hash");
  }
  return std::string(hash);
}

}  // namespace

bool PrometheusServer::available() {
  return findOnPath("prometheus").has_value() && findOnPath("promtool").has_value();
}

Result<std::unique_ptr<PrometheusServer>> PrometheusServer::start(const std::string& openMetrics,
                                                                  bool tls) {
  std::unique_ptr<PrometheusServer> server(new PrometheusServer());
  server->tls_ = tls;
  const auto& dir = server->dir_.path();
  if (dir.empty()) return fail(ErrorCode::kInternal, "cannot create a temporary directory");
  const auto data = dir / "data.om";
  const auto tsdb = dir / "tsdb";
  const auto config = dir / "prometheus.yml";
  const auto log = dir / "prometheus.log";
  if (!writeFile(data, openMetrics) || !writeFile(config, "global:\n  scrape_interval: 1m\n")) {
    return fail(ErrorCode::kInternal, "cannot write test files in " + dir.string());
  }
  if (runToCompletion(
          {"promtool", "tsdb", "create-blocks-from", "openmetrics", data.string(), tsdb.string()},
          log) != 0) {
    return fail(ErrorCode::kInternal, "promtool backfill failed:\n" + tail(log));
  }
  std::vector<std::string> extraArgs;
  auto webConfig = server->writeWebConfig({.tls = tls, .username = {}, .password = {}});
  if (!webConfig) return std::unexpected(webConfig.error());
  if (!webConfig->empty()) extraArgs.push_back(*webConfig);
  return launch(std::move(server), tsdb, config, std::move(extraArgs));
}

Result<std::string> PrometheusServer::writeWebConfig(const WebServing& web) {
  tls_ = web.tls;
  web_ = web;
  if (!web.tls && web.username.empty()) return std::string();
  const auto& dir = dir_.path();
  const auto log = dir / "prometheus.log";
  std::string config;
  if (web.tls) {
    const auto key = dir / "key.pem";
    if (runToCompletion({"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                         "-keyout", key.string(), "-out", caFile().string()},
                        log) != 0) {
      return fail(ErrorCode::kInternal, "cannot make a test certificate:\n" + tail(log));
    }
    config += "tls_server_config:\n  cert_file: " + caFile().string() +
              "\n  key_file: " + key.string() + "\n";
  }
  if (!web.username.empty()) {
    auto hash = bcryptHash(web.password);
    if (!hash) return std::unexpected(hash.error());
    config += "basic_auth_users:\n  " + web.username + ": '" + *hash + "'\n";
  }
  if (!writeFile(dir / "web.yml", config)) {
    return fail(ErrorCode::kInternal, "cannot write test files in " + dir.string());
  }
  return "--web.config.file=" + (dir / "web.yml").string();
}

Result<std::unique_ptr<PrometheusServer>> PrometheusServer::startScraping(
    const std::string& target, Duration interval, const std::filesystem::path& targetCa,
    const WebServing& web) {
  std::unique_ptr<PrometheusServer> server(new PrometheusServer());
  const auto& dir = server->dir_.path();
  if (dir.empty()) return fail(ErrorCode::kInternal, "cannot create a temporary directory");
  auto webConfig = server->writeWebConfig(web);
  if (!webConfig) return std::unexpected(webConfig.error());
  const std::string every = formatDuration(interval);
  std::string config = "global:\n  scrape_interval: " + every +
                       "\n  evaluation_interval: " + every +
                       "\nscrape_configs:\n  - job_name: attune-sim\n    honor_labels: true\n";
  if (!targetCa.empty()) {
    config += "    scheme: https\n    tls_config:\n      ca_file: " + targetCa.string() + "\n";
  }
  config += "    static_configs:\n      - targets: ['" + target + "']\n";
  if (!writeFile(dir / "prometheus.yml", config)) {
    return fail(ErrorCode::kInternal, "cannot write test files in " + dir.string());
  }
  std::vector<std::string> extraArgs;
  if (!webConfig->empty()) extraArgs.push_back(*webConfig);
  return launch(std::move(server), dir / "tsdb", dir / "prometheus.yml", std::move(extraArgs));
}

Result<std::unique_ptr<PrometheusServer>> PrometheusServer::launch(
    std::unique_ptr<PrometheusServer> server, const std::filesystem::path& tsdb,
    const std::filesystem::path& config, std::vector<std::string> extraArgs) {
  const auto log = server->dir_.path() / "prometheus.log";
  server->port_ = freeLocalPort();
  std::vector<std::string> argv = {
      "prometheus", "--storage.tsdb.path=" + tsdb.string(), "--config.file=" + config.string(),
      "--web.listen-address=127.0.0.1:" + std::to_string(server->port_)};
  argv.insert(argv.end(), extraArgs.begin(), extraArgs.end());
  server->process_ = std::make_unique<ChildProcess>(argv, log);

  http::HttpClientOptions options;
  options.timeout = std::chrono::seconds(2);
  options.caFile = server->tls_ ? server->caFile() : std::filesystem::path();
  if (!server->web_.username.empty()) {
    options.basicAuth = http::BasicAuth{server->web_.username, server->web_.password};
  }
  http::CurlHttpClient http(options);
  SystemClock clock;
  for (int attempt = 0; attempt < kReadyAttempts; ++attempt) {
    if (!server->process_->running()) {
      return fail(ErrorCode::kUnavailable, "prometheus exited:\n" + tail(log));
    }
    auto ready = http.send(http::HttpRequest{.url = server->address() + "/-/ready"});
    if (ready && ready->status == 200) return server;
    clock.sleepFor(kReadyPoll);
  }
  return fail(ErrorCode::kUnavailable, "prometheus did not become ready:\n" + tail(log));
}

std::unique_ptr<PrometheusServer> PrometheusServer::startForSuite(const std::string& openMetrics,
                                                                  std::string& error) {
  if (!available()) return nullptr;
  auto server = start(openMetrics);
  if (!server) {
    error = server.error().message;
    return nullptr;
  }
  return std::move(*server);
}

}  // namespace attune::testing
