// berth serve's serving flags: the listen address and the static token file,
// with errors that name the flag (and the file's line).

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "apiserver/authz/token_file.h"
#include "apiserver/serving_options.h"

namespace berth::apiserver {
namespace {

TEST(ParseListenAddress, ReadsHostPortAndLoopback) {
  auto a = ParseListenAddress("127.0.0.1:8080").value();
  EXPECT_EQ(a.host, "127.0.0.1");
  EXPECT_EQ(a.port, 8080);
  EXPECT_TRUE(a.loopback);
  auto v6 = ParseListenAddress("[::1]:0").value();
  EXPECT_EQ(v6.host, "::1");
  EXPECT_EQ(v6.port, 0);
  EXPECT_TRUE(v6.loopback);
  EXPECT_FALSE(ParseListenAddress("0.0.0.0:443").value().loopback);
}

TEST(ParseListenAddress, RefusesWhatIsNotHostPort) {
  EXPECT_EQ(ParseListenAddress("8080").status().message(), "--listen 8080: expected HOST:PORT");
  EXPECT_EQ(ParseListenAddress("127.0.0.1:http").status().message(), "--listen 127.0.0.1:http: invalid port");
  EXPECT_EQ(ParseListenAddress("127.0.0.1:65536").status().message(), "--listen 127.0.0.1:65536: invalid port");
  EXPECT_EQ(ParseListenAddress("127.0.0.1:-1").status().message(), "--listen 127.0.0.1:-1: invalid port");
  EXPECT_EQ(ParseListenAddress("localhost:80").status().message(),
            "--listen localhost:80: invalid address \"localhost\"");
}

class TokenFileTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& text) {
    path_ = std::filesystem::temp_directory_path() / ("berth-tokens-" + std::to_string(::getpid()) + ".csv");
    std::ofstream(path_) << text;
    return path_.string();
  }
  void TearDown() override { std::filesystem::remove(path_); }
  std::filesystem::path path_;
};

TEST_F(TokenFileTest, ReadsKubesFormat) {
  auto tokens = ReadTokenFile(Write("# admins\nsecret,alice,1,\"system:masters,dev\"\n\nt2,bob,2\n")).value();
  ASSERT_EQ(tokens.size(), 2u);
  EXPECT_EQ(tokens["secret"].name, "alice");
  EXPECT_EQ(tokens["secret"].uid, "1");
  EXPECT_EQ(tokens["secret"].groups, (std::vector<std::string>{"system:masters", "dev"}));
  EXPECT_EQ(tokens["t2"].name, "bob");
  EXPECT_TRUE(tokens["t2"].groups.empty());
}

TEST_F(TokenFileTest, NamesTheLineOfAMalformedEntry) {
  std::string path = Write("ok,alice,1\nbroken\n");
  EXPECT_EQ(ReadTokenFile(path).status().message(),
            "--token-file " + path + ":2: expected token,user,uid[,\"groups\"]");
  path = Write("# nothing\n");
  EXPECT_EQ(ReadTokenFile(path).status().message(), "--token-file " + path + ": no tokens");
  EXPECT_EQ(ReadTokenFile("/nonexistent/tokens").status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace berth::apiserver
