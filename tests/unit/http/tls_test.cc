#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include <unistd.h>

#include "http/http_client.h"
#include "unit/http/tls_server.h"

namespace attune::http {
namespace {

std::string readFile(const std::filesystem::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class TlsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::filesystem::path(std::filesystem::temp_directory_path() /
                                     ("attune_http_tls_test_" + std::to_string(getpid())));
    std::filesystem::remove_all(*dir_);
    ready_ = attune::testing::makeTestCertificates(*dir_, *(why_ = new std::string));
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*dir_);
    delete dir_;
    delete why_;
  }
  void SetUp() override {
    if (!ready_) GTEST_SKIP() << "no test certificates: " << *why_;
  }
  static std::filesystem::path file(const char* name) { return *dir_ / name; }

  static inline std::filesystem::path* dir_ = nullptr;
  static inline std::string* why_ = nullptr;
  static inline bool ready_ = false;
};

TEST_F(TlsTest, VerifiesTheServerWithACaFileOrCaData) {
  attune::testing::TlsServer server(file("server.crt"), file("server.key"));
  ASSERT_TRUE(server.ok());
  CurlHttpClient byFile({.caFile = file("ca.crt")});
  auto r = byFile.send({.url = server.address() + "/version"});
  ASSERT_TRUE(r.has_value()) << r.error().toString();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "ok");
  CurlHttpClient byData({.caData = readFile(file("ca.crt"))});
  auto d = byData.send({.url = server.address() + "/version"});
  ASSERT_TRUE(d.has_value()) << d.error().toString();
  EXPECT_EQ(d->body, "ok");
}

TEST_F(TlsTest, RejectsAServerSignedByAnotherCa) {
  attune::testing::TlsServer server(file("server.crt"), file("server.key"));
  CurlHttpClient client({.caData = readFile(file("other-ca.crt"))});
  auto r = client.send({.url = server.address() + "/version"});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
  CurlHttpClient insecure({.caData = readFile(file("other-ca.crt")), .insecureSkipVerify = true});
  auto i = insecure.send({.url = server.address() + "/version"});
  ASSERT_TRUE(i.has_value()) << i.error().toString();
  EXPECT_EQ(i->body, "ok");
}

TEST_F(TlsTest, PresentsAClientCertificateFromFilesOrData) {
  attune::testing::TlsServer server(file("server.crt"), file("server.key"), file("ca.crt"));
  ASSERT_TRUE(server.ok());
  CurlHttpClient none({.caFile = file("ca.crt")});
  EXPECT_FALSE(none.send({.url = server.address() + "/version"}).has_value());
  EXPECT_EQ(server.served(), 0);

  CurlHttpClient files({.caFile = file("ca.crt"),
                        .clientCertFile = file("client.crt"),
                        .clientKeyFile = file("client.key")});
  auto f = files.send({.url = server.address() + "/version"});
  ASSERT_TRUE(f.has_value()) << f.error().toString();
  EXPECT_EQ(f->body, "ok");

  CurlHttpClient data({.caFile = file("ca.crt"),
                       .clientCertData = readFile(file("client.crt")),
                       .clientKeyData = readFile(file("client.key"))});
  auto d = data.send({.url = server.address() + "/version"});
  ASSERT_TRUE(d.has_value()) << d.error().toString();
  EXPECT_EQ(d->body, "ok");
  EXPECT_EQ(server.served(), 2);
}

}  // namespace
}  // namespace attune::http
