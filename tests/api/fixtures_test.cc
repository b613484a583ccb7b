// Kubernetes' own round-trip test data: every field of each kind populated.
// Decoding then encoding must give back the same JSON value, unknown fields
// included.

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "api/object.h"

namespace berth::api {
namespace {

namespace fs = std::filesystem;

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(Fixtures, EveryKindRoundTripsUnchanged) {
  fs::path dir = fs::path(BERTH_FIXTURES_DIR) / "k8s-api-testdata";
  ASSERT_TRUE(fs::is_directory(dir)) << dir;
  int files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    ++files;
    if (entry.path().filename() == "core.v1.Status.json") continue;  // a response, not a stored kind
    std::string text = ReadFile(entry.path());
    auto object = Object::Decode(text);
    ASSERT_TRUE(object.ok()) << entry.path().filename() << ": " << object.status().message();
    EXPECT_EQ(boost::json::parse(object.value()->Encoded()), boost::json::parse(text))
        << entry.path().filename();
    // A stored version changes only metadata.resourceVersion.
    boost::json::value stored = boost::json::parse(object.value()->WithResourceVersion(42)->Encoded());
    boost::json::value expected = boost::json::parse(text);
    expected.as_object()["metadata"].as_object()["resourceVersion"] = "42";
    EXPECT_EQ(stored, expected) << entry.path().filename();
  }
  EXPECT_GE(files, 13);
}

}  // namespace
}  // namespace berth::api
