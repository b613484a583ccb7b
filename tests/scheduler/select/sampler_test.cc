// Node selection: the samplers draw in proportion to their weights (Pearson's
// chi-square goodness of fit at fixed seeds, like Mesos'
// WeightedShuffleTest.ProbabilityDistribution), never draw a zero weight, and
// reproduce their draws from a seed; SelectTopScore breaks ties uniformly.

#include "scheduler/select/sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

namespace berth::scheduler {
namespace {

constexpr int64_t kDraws = 200'000;

// Pearson's statistic of observed counts against shares proportional to
// `weights` (all zero: uniform); categories expected never to occur are left
// out, and are checked separately for zero counts.
double ChiSquare(const std::vector<int64_t>& counts, const std::vector<int64_t>& weights) {
  double total_weight = 0, draws = 0;
  for (int64_t w : weights) total_weight += static_cast<double>(std::max<int64_t>(w, 0));
  for (int64_t c : counts) draws += static_cast<double>(c);
  double stat = 0;
  for (size_t i = 0; i < weights.size(); ++i) {
    double share = total_weight == 0 ? 1.0 / static_cast<double>(weights.size())
                                     : static_cast<double>(std::max<int64_t>(weights[i], 0)) / total_weight;
    if (share == 0) continue;
    double expected = draws * share;
    double d = static_cast<double>(counts[i]) - expected;
    stat += d * d / expected;
  }
  return stat;
}

// The 0.999 quantile of chi-square with `df` degrees of freedom: a correct
// sampler fails one run in a thousand seeds; these seeds are fixed.
double Critical999(int df) {
  static const double kTable[] = {0, 10.828, 13.816, 16.266, 18.467, 20.515, 22.458, 24.322, 26.124, 27.877, 29.588};
  if (df <= 10) return kTable[df];
  // Wilson–Hilferty, within 0.5% for df > 10.
  double k = df, z = 3.090232;
  return k * std::pow(1 - 2 / (9 * k) + z * std::sqrt(2 / (9 * k)), 3);
}

int DegreesOfFreedom(const std::vector<int64_t>& weights) {
  int categories = 0;
  bool all_zero = true;
  for (int64_t w : weights) all_zero = all_zero && w <= 0;
  for (int64_t w : weights) categories += (all_zero || w > 0) ? 1 : 0;
  return categories - 1;
}

template <typename Sampler>
std::vector<int64_t> Draw(const std::vector<int64_t>& weights, uint64_t seed, int64_t draws = kDraws) {
  Sampler sampler;
  sampler.Build(weights);
  std::mt19937_64 rng(seed);
  std::vector<int64_t> counts(weights.size());
  for (int64_t i = 0; i < draws; ++i) counts.at(sampler.Sample(rng))++;
  return counts;
}

std::vector<int64_t> ManyWeights() {
  std::vector<int64_t> weights;
  for (int i = 0; i < 100; ++i) weights.push_back((i * 37) % 11);  // 0..10, some zero
  return weights;
}

struct DistributionCase {
  std::string name;
  std::vector<int64_t> weights;
};

const std::vector<DistributionCase>& DistributionCases() {
  static const std::vector<DistributionCase> cases = {
      {"mixed weights with a zero", {1, 2, 3, 4, 0, 10}},
      {"skewed the other way", {100, 0, 1, 1, 50, 25}},
      {"zeros at both ends", {0, 0, 7, 3, 0}},
      {"equal weights", {5, 5, 5, 5, 5}},
      {"all zero is uniform", {0, 0, 0, 0}},
      {"negative weights count as zero", {-5, 3, 1}},
      {"a hundred nodes", ManyWeights()},
      {"weights near int64's limit do not overflow",
       {std::numeric_limits<int64_t>::max(), 0, std::numeric_limits<int64_t>::max()}},
  };
  return cases;
}

template <typename Sampler>
void CheckDistributions(const char* sampler_name) {
  uint64_t seed = 1;
  for (const auto& c : DistributionCases()) {
    auto counts = Draw<Sampler>(c.weights, seed++);
    bool all_zero = std::all_of(c.weights.begin(), c.weights.end(), [](int64_t w) { return w <= 0; });
    for (size_t i = 0; i < c.weights.size(); ++i) {
      if (!all_zero && c.weights[i] <= 0) {
        EXPECT_EQ(counts[i], 0) << sampler_name << ", " << c.name << ": zero-weight index " << i << " was drawn";
      }
    }
    int df = DegreesOfFreedom(c.weights);
    EXPECT_LT(ChiSquare(counts, c.weights), Critical999(df)) << sampler_name << ", " << c.name << " (df " << df << ")";
  }
}

TEST(AliasSampler, DrawsInProportionToWeights) { CheckDistributions<AliasSampler>("alias"); }

TEST(PrefixSumSampler, DrawsInProportionToWeights) { CheckDistributions<PrefixSumSampler>("prefix sum"); }

TEST(Sampler, TheGoodnessOfFitCheckRejectsAWrongDistribution) {
  // Uniform draws judged against {1,2,3,4,0,10}: the check must notice.
  const std::vector<int64_t> weights = {1, 2, 3, 4, 0, 10};
  auto counts = Draw<AliasSampler>({1, 1, 1, 1, 0, 1}, 3);
  EXPECT_GT(ChiSquare(counts, weights), 100 * Critical999(DegreesOfFreedom(weights)));
}

TEST(Sampler, OnePositiveWeightAmongZerosIsAlwaysDrawn) {
  const std::vector<int64_t> weights = {0, 0, 0, 9, 0, 0};
  EXPECT_EQ(Draw<AliasSampler>(weights, 11, 10'000)[3], 10'000);
  EXPECT_EQ(Draw<PrefixSumSampler>(weights, 11, 10'000)[3], 10'000);
}

TEST(Sampler, ASingleIndexIsAlwaysDrawn) {
  for (int64_t w : {int64_t{0}, int64_t{1}, std::numeric_limits<int64_t>::max()}) {
    EXPECT_EQ(Draw<AliasSampler>({w}, 5, 1000)[0], 1000) << w;
    EXPECT_EQ(Draw<PrefixSumSampler>({w}, 5, 1000)[0], 1000) << w;
  }
}

TEST(Sampler, TheSameSeedGivesTheSameDraws) {
  const std::vector<int64_t> weights = {3, 1, 4, 1, 5, 9, 2, 6};
  AliasSampler a, b;
  a.Build(weights);
  b.Build(weights);
  PrefixSumSampler p, q;
  p.Build(weights);
  q.Build(weights);
  std::mt19937_64 r1(99), r2(99), r3(99), r4(99);
  for (int i = 0; i < 1000; ++i) {
    ASSERT_EQ(a.Sample(r1), b.Sample(r2)) << i;
    ASSERT_EQ(p.Sample(r3), q.Sample(r4)) << i;
  }
  // And a different seed gives a different sequence.
  std::mt19937_64 r5(99), r6(100);
  int differences = 0;
  for (int i = 0; i < 100; ++i) differences += a.Sample(r5) != a.Sample(r6);
  EXPECT_GT(differences, 0);
}

TEST(Sampler, RebuildingReplacesTheDistribution) {
  // A sampler rebuilt for new weights draws exactly as a fresh one does.
  const std::vector<int64_t> first = {10, 0, 0, 0, 1, 2, 3, 4, 5, 6};
  const std::vector<int64_t> second = {0, 4, 1, 0};
  AliasSampler reused, fresh;
  PrefixSumSampler reused_prefix, fresh_prefix;
  reused.Build(first);
  reused_prefix.Build(first);
  reused.Build(second);
  reused_prefix.Build(second);
  fresh.Build(second);
  fresh_prefix.Build(second);
  ASSERT_EQ(reused.size(), 4u);
  ASSERT_EQ(reused_prefix.size(), 4u);
  std::mt19937_64 r1(8), r2(8), r3(8), r4(8);
  for (int i = 0; i < 1000; ++i) {
    ASSERT_EQ(reused.Sample(r1), fresh.Sample(r2)) << i;
    ASSERT_EQ(reused_prefix.Sample(r3), fresh_prefix.Sample(r4)) << i;
  }
}

TEST(SelectTopScore, PicksTheUniqueMaximum) {
  std::mt19937_64 rng(1);
  struct Case {
    std::string name;
    std::vector<int64_t> scores;
    size_t want;
  };
  const std::vector<Case> cases = {
      {"one node", {42}, 0},
      {"maximum first", {9, 1, 2}, 0},
      {"maximum last", {1, 2, 3}, 2},
      {"maximum in the middle", {5, 100, 99}, 1},
      {"negative scores", {-7, -3, -5}, 1},
  };
  for (const auto& c : cases) {
    for (int i = 0; i < 20; ++i) EXPECT_EQ(SelectTopScore(c.scores, rng), c.want) << c.name;
  }
}

TEST(SelectTopScore, BreaksTiesUniformly) {
  const std::vector<int64_t> scores = {10, 70, 30, 70, 70, 5, 70};
  std::mt19937_64 rng(5);
  std::vector<int64_t> counts(scores.size());
  for (int64_t i = 0; i < kDraws; ++i) counts[SelectTopScore(scores, rng)]++;
  EXPECT_EQ(counts[0] + counts[2] + counts[5], 0);
  const std::vector<int64_t> tied = {0, 1, 0, 1, 1, 0, 1};
  EXPECT_LT(ChiSquare(counts, tied), Critical999(3));
}

TEST(SelectTopScore, TheSameSeedGivesTheSameChoices) {
  const std::vector<int64_t> scores(50, 7);  // all tied
  std::mt19937_64 r1(123), r2(123);
  std::vector<size_t> a, b;
  for (int i = 0; i < 200; ++i) {
    a.push_back(SelectTopScore(scores, r1));
    b.push_back(SelectTopScore(scores, r2));
  }
  EXPECT_EQ(a, b);
  EXPECT_GT(std::set<size_t>(a.begin(), a.end()).size(), 1u);
}

}  // namespace
}  // namespace berth::scheduler
