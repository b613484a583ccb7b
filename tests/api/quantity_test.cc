// Resource quantities, case by case from Kubernetes' quantity documentation
// (k8s.io/apimachinery/pkg/api/resource).

#include "api/quantity.h"

#include <gtest/gtest.h>

namespace berth::api {
namespace {

struct Case {
  std::string input;
  std::string canonical;
  int64_t value;
  int64_t milli;
};

TEST(Quantity, ParsesAndCanonicalizesLikeKubernetes) {
  const Case cases[] = {
      {"0", "0", 0, 0},
      {"1", "1", 1, 1000},
      {"100m", "100m", 1, 100},
      {"1000m", "1", 1, 1000},
      {"1500m", "1500m", 2, 1500},
      {"0.5", "500m", 1, 500},
      {".5", "500m", 1, 500},
      {"5.", "5", 5, 5000},
      {"1.5", "1500m", 2, 1500},
      {"1k", "1k", 1000, 1000000},
      {"1000", "1k", 1000, 1000000},
      {"12M", "12M", 12000000, 12000000000},
      {"1Ki", "1Ki", 1024, 1024000},
      {"1024Ki", "1Mi", 1048576, 1048576000},
      {"1.5Gi", "1536Mi", 1610612736, 1610612736000},
      {"128Mi", "128Mi", 134217728, 134217728000},
      {"1e3", "1e3", 1000, 1000000},
      {"1E3", "1e3", 1000, 1000000},
      {"12e-3", "12e-3", 1, 12},
      {"1e-3", "1e-3", 1, 1},
      {"100u", "100u", 1, 1},
      {"1n", "1n", 1, 1},
      {"0.1m", "100u", 1, 1},
      {"-1", "-1", -1, -1000},
      {"+2", "2", 2, 2000},
      {"1.0001", "1000100u", 2, 1001},
      {"0.0000000001", "1n", 1, 1},  // below nano: rounded up
  };
  for (const auto& c : cases) {
    auto q = Quantity::Parse(c.input);
    ASSERT_TRUE(q.ok()) << c.input << ": " << q.status().message();
    EXPECT_EQ(q->ToString(), c.canonical) << c.input;
    EXPECT_EQ(q->Value(), c.value) << c.input;
    EXPECT_EQ(q->MilliValue(), c.milli) << c.input;
  }
}

TEST(Quantity, RejectsInvalidSyntaxWithKubesMessages) {
  for (const char* bad : {"", "abc", "1.2.3", "--1", "1Ki2", "1ki", "1 Gi", "e3", "1e", "1X", "Gi"}) {
    auto q = Quantity::Parse(bad);
    EXPECT_FALSE(q.ok()) << bad;
    EXPECT_EQ(q.status().code(), StatusCode::kBadRequest) << bad;
  }
  EXPECT_EQ(Quantity::Parse("abc").status().message(),
            "quantities must match the regular expression "
            "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  EXPECT_EQ(Quantity::Parse("1X").status().message(), "unable to parse quantity's suffix");
}

TEST(Quantity, ValueSaturatesInsteadOfOverflowing) {
  auto big = Quantity::Parse("100E");
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big->Value(), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(big->MilliValue(), std::numeric_limits<int64_t>::max());
  EXPECT_FALSE(Quantity::Parse("1e999").ok());
}

TEST(Quantity, ComparesAcrossFormats) {
  auto a = Quantity::Parse("1Gi").value();
  auto b = Quantity::Parse("1073741824").value();
  auto c = Quantity::Parse("1G").value();
  EXPECT_EQ(a.Compare(b), 0);
  EXPECT_GT(a.Compare(c), 0);
  EXPECT_LT(Quantity::Parse("-1").value().Compare(Quantity::Parse("0").value()), 0);
  EXPECT_TRUE(Quantity::Parse("0m").value().IsZero());
  EXPECT_EQ(Quantity::FromMilli(1500).ToString(), "1500m");
  EXPECT_EQ(Quantity::FromInt(2048, Quantity::Format::kBinarySI).ToString(), "2Ki");
}

// Found by fuzz_quantity: values far beyond int64 overflowed __int128 when
// printed ("1e60") or compared (a 36-digit mantissa scaled by 10^24).
TEST(Quantity, HugeValuesPrintAndCompareWithoutOverflow) {
  auto exp = Quantity::Parse("1e60");
  ASSERT_TRUE(exp.ok());
  EXPECT_EQ(exp->ToString(), "1e60");
  const std::string si = "1" + std::string(42, '0') + "E";
  auto big = Quantity::Parse(si);
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big->ToString(), si);
  auto again = Quantity::Parse(big->ToString());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->Compare(*big), 0);
  EXPECT_EQ(big->Compare(*exp), 0) << "10^42 * 10^18 is 10^60";
  EXPECT_GT(big->Compare(Quantity::Parse("9e59").value()), 0);

  auto wide = Quantity::Parse("123456789012345678901234567890123456e24").value();
  auto one = Quantity::Parse("1").value();
  EXPECT_GT(wide.Compare(one), 0);
  EXPECT_LT(one.Compare(wide), 0);
  auto negative = Quantity::Parse("-123456789012345678901234567890123456e24").value();
  EXPECT_LT(negative.Compare(Quantity::Parse("-1").value()), 0);
  EXPECT_GT(Quantity::Parse("-1").value().Compare(negative), 0);
  EXPECT_LT(Quantity::Parse("123456789012345678901234567890123455e24").value().Compare(wide), 0);
}

}  // namespace
}  // namespace berth::api
