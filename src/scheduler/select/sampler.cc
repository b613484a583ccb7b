#include "scheduler/select/sampler.h"

#include <algorithm>
#include <cassert>
#include <limits>

namespace berth::scheduler {
namespace {

using uint128 = unsigned __int128;

constexpr uint64_t kMax64 = std::numeric_limits<uint64_t>::max();

// A uniform integer in [0, bound) without modulo bias (Lemire's multiply-shift
// with rejection; the loop runs again with probability < bound / 2^64).
// REQUIRES: bound > 0.
uint64_t UniformBelow(std::mt19937_64& rng, uint64_t bound) {
  uint128 product = static_cast<uint128>(rng()) * bound;
  auto low = static_cast<uint64_t>(product);
  if (low < bound) {
    uint64_t threshold = (0 - bound) % bound;  // 2^64 mod bound
    while (low < threshold) {
      product = static_cast<uint128>(rng()) * bound;
      low = static_cast<uint64_t>(product);
    }
  }
  return static_cast<uint64_t>(product >> 64);
}

// The weight an index is drawn with once weights are scaled down by `shift`
// bits: zero stays zero, and a positive weight never rounds down to zero.
uint64_t EffectiveWeight(int64_t w, int shift) {
  if (w <= 0) return 0;
  return std::max<uint64_t>(static_cast<uint64_t>(w) >> shift, 1);
}

// The smallest right shift after which the effective weights sum to at most
// 2^64 - 1; 0 unless the weights are astronomically large.
int FitShift(std::span<const int64_t> weights) {
  for (int shift = 0;; ++shift) {
    uint128 total = 0;
    for (int64_t w : weights) total += EffectiveWeight(w, shift);
    if (total <= kMax64) return shift;
  }
}

}  // namespace

size_t SelectTopScore(std::span<const int64_t> scores, std::mt19937_64& rng) {
  assert(!scores.empty());
  size_t selected = 0;
  uint64_t ties = 1;
  for (size_t i = 1; i < scores.size(); ++i) {
    if (scores[i] > scores[selected]) {
      selected = i;
      ties = 1;
    } else if (scores[i] == scores[selected]) {
      // The k-th of k equal maxima replaces the choice with probability 1/k,
      // which leaves each of them chosen with probability 1/k.
      ++ties;
      if (UniformBelow(rng, ties) == 0) selected = i;
    }
  }
  return selected;
}

// Vose's construction in exact integers: with T = Σ w, column i starts with
// w[i]·n against a full column of T, so nothing is rounded, and a zero-weight
// index keeps a threshold of exactly 0. `Wide` holds w[i]·n: 64 bits when
// that cannot overflow (scheduler scores always), else 128.
template <typename Wide>
void AliasSampler::FillColumns(std::span<const int64_t> weights, int shift, uint64_t total,
                               std::vector<Wide>& scaled) {
  const size_t n = weights.size();
  scaled.resize(n);
  small_.clear();
  large_.clear();
  for (size_t i = 0; i < n; ++i) {
    scaled[i] = static_cast<Wide>(EffectiveWeight(weights[i], shift)) * n;
    (scaled[i] < total ? small_ : large_).push_back(static_cast<uint32_t>(i));
  }
  // Each step fills one short column with the excess of a tall one. The sums
  // are exact, so when either list empties every remaining column is exactly full.
  while (!small_.empty() && !large_.empty()) {
    uint32_t s = small_.back();
    small_.pop_back();
    uint32_t l = large_.back();
    threshold_[s] = static_cast<uint64_t>(scaled[s]);  // < total, which fits in 64 bits
    alias_[s] = l;
    scaled[l] -= total - scaled[s];
    if (scaled[l] < total) {
      large_.pop_back();
      small_.push_back(l);
    }
  }
  assert(small_.empty());
}

void AliasSampler::Build(std::span<const int64_t> weights) {
  const size_t n = weights.size();
  assert(n <= std::numeric_limits<uint32_t>::max());
  threshold_.assign(n, 0);
  total_ = 0;
  alias_.resize(n);
  for (size_t i = 0; i < n; ++i) alias_[i] = static_cast<uint32_t>(i);
  // One pass for the total and the largest weight; the scaling search
  // (FitShift) only for weights too large to sum in 64 bits.
  uint128 sum = 0;
  uint64_t largest = 0;
  for (int64_t w : weights) {
    if (w <= 0) continue;
    sum += static_cast<uint64_t>(w);
    largest = std::max(largest, static_cast<uint64_t>(w));
  }
  const int shift = sum <= kMax64 ? 0 : FitShift(weights);
  uint64_t total = 0;
  if (shift == 0) {
    total = static_cast<uint64_t>(sum);
  } else {
    for (int64_t w : weights) total += EffectiveWeight(w, shift);
  }
  if (total == 0) return;  // uniform: every column keeps itself
  total_ = total;
  if (shift == 0 && largest <= kMax64 / n) {
    FillColumns(weights, shift, total, scaled64_);
  } else {
    FillColumns(weights, shift, total, scaled_);
  }
}

size_t AliasSampler::Sample(std::mt19937_64& rng) const {
  assert(!alias_.empty());
  auto column = static_cast<size_t>(UniformBelow(rng, alias_.size()));
  uint32_t alias = alias_[column];
  if (alias == column) return column;  // a full column (or uniform weights)
  return UniformBelow(rng, total_) < threshold_[column] ? column : alias;
}

void PrefixSumSampler::Build(std::span<const int64_t> weights) {
  const int shift = FitShift(weights);
  prefix_.resize(weights.size());
  uint64_t sum = 0;
  for (size_t i = 0; i < weights.size(); ++i) prefix_[i] = sum += EffectiveWeight(weights[i], shift);
}

size_t PrefixSumSampler::Sample(std::mt19937_64& rng) const {
  assert(!prefix_.empty());
  uint64_t total = prefix_.back();
  if (total == 0) return static_cast<size_t>(UniformBelow(rng, prefix_.size()));
  // The first index whose running sum exceeds r: a zero-weight index repeats its
  // predecessor's sum, so it is never the first.
  uint64_t r = UniformBelow(rng, total);
  return static_cast<size_t>(std::upper_bound(prefix_.begin(), prefix_.end(), r) - prefix_.begin());
}

}  // namespace berth::scheduler
