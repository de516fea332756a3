#include "tls_server.h"

#include <fstream>

#include "support/command.h"

namespace attune::testing {

TlsServer::TlsServer(const std::filesystem::path& cert, const std::filesystem::path& key,
                     const std::filesystem::path& clientCa)
    : server_(
          [this](LoopbackConnection& connection) {
            connection.receiveHttpRequest();  // whatever it asks, the answer is 200 "ok"
            connection.send("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok");
            ++served_;
            return LoopbackServer::After::kClose;
          },
          LoopbackTls{cert, key, clientCa}) {}

bool makeTestCertificates(const std::filesystem::path& dir, std::string& why) {
  if (runCommand("command -v openssl").exitCode != 0) {
    why = "the openssl CLI is not installed";
    return false;
  }
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "server.ext") << "subjectAltName=IP:127.0.0.1\n";
  std::ofstream(dir / "client.ext") << "extendedKeyUsage=clientAuth\n";
  const std::string d = dir.string();
  const std::string key = " -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
  const std::string script =
      "set -e; cd '" + d + "';" + "openssl req -x509" + key +
      " -keyout ca.key -out ca.crt -days 2 -subj /CN=attune-test-ca;" + "openssl req -x509" + key +
      " -keyout other-ca.key -out other-ca.crt -days 2 -subj /CN=other;" + "openssl req" + key +
      " -keyout server.key -out server.csr -subj /CN=127.0.0.1;" +
      "openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2" +
      " -extfile server.ext -out server.crt;" + "openssl req" + key +
      " -keyout client.key -out client.csr -subj /CN=attune;" +
      "openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2" +
      " -extfile client.ext -out client.crt";
  const CommandRun run = runCommand(script);
  if (run.exitCode != 0) {
    why = "openssl failed: " + run.err;
    return false;
  }
  return true;
}

}  // namespace attune::testing
