// A real Prometheus server for one test process: the data set is backfilled with promtool into
// a temporary TSDB, then `prometheus` serves it on a free 127.0.0.1 port. Destroying the object
// kills the server and removes the directory.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/time.h"
#include "support/prometheus/child_process.h"

namespace attune::testing {

// Why a Prometheus test is skipped when the binaries are missing.
inline constexpr const char* kPrometheusMissing =
    "prometheus and promtool are not on PATH (scripts/setup.sh installs the Debian prometheus "
    "package)";

// How a server serves its own API, through Prometheus's --web.config.file: HTTPS with a fresh
// self-signed certificate for 127.0.0.1 (its PEM is caFile()), and basic authentication of one
// user (the password stored as a bcrypt hash, made with libcrypt).
struct WebServing {
  bool tls = false;
  std::string username;  // empty: no authentication
  std::string password;
};

class PrometheusServer {
 public:
  // True when both `prometheus` and `promtool` are on PATH.
  static bool available();
  // Backfills `openMetrics` and starts the server, waiting until /-/ready answers 200. With
  // `tls`, the server serves HTTPS with a fresh self-signed certificate for 127.0.0.1 (made
  // with the openssl CLI), whose PEM is caFile().
  static Result<std::unique_ptr<PrometheusServer>> start(const std::string& openMetrics,
                                                         bool tls = false);
  // Starts a server with an empty TSDB that scrapes http(s)://`target`/metrics ("host:port")
  // every `interval` (honouring the target's labels, as for kube-state-metrics), waiting until
  // /-/ready answers 200. With `targetCa` set the target is scraped over HTTPS, trusting that CA
  // file.
  // `web`: how the server serves its own API (plain HTTP without authentication by default).
  static Result<std::unique_ptr<PrometheusServer>> startScraping(
      const std::string& target, Duration interval, const std::filesystem::path& targetCa = {},
      const WebServing& web = {});

  // For a test suite's SetUpTestSuite: start(openMetrics), or nullptr with the reason in `error`
  // (nullptr and no error when the binaries are missing).
  static std::unique_ptr<PrometheusServer> startForSuite(const std::string& openMetrics,
                                                         std::string& error);

  std::string address() const {
    return (tls_ ? "https" : "http") + std::string("://127.0.0.1:") + std::to_string(port_);
  }
  std::filesystem::path caFile() const { return dir_.path() / "cert.pem"; }

 private:
  PrometheusServer() = default;
  // Runs prometheus on a free port over the TSDB at `tsdb` with the config at `config` (plus
  // `extraArgs`) and waits until it is ready.
  static Result<std::unique_ptr<PrometheusServer>> launch(std::unique_ptr<PrometheusServer> server,
                                                          const std::filesystem::path& tsdb,
                                                          const std::filesystem::path& config,
                                                          std::vector<std::string> extraArgs);

  // Writes the web config of `web` (and the certificate when it asks for TLS) into the
  // directory; the --web.config.file argument to pass, or "" when `web` asks for nothing.
  Result<std::string> writeWebConfig(const WebServing& web);

  TempDir dir_;
  std::unique_ptr<ChildProcess> process_;
  int port_ = 0;
  bool tls_ = false;
  WebServing web_;
};

}  // namespace attune::testing
