#pragma once
// Choosing one node from per-node numbers, with the random source passed in so
// that a seed reproduces every choice (the draws use only the generator's raw
// 64-bit output, never std:: distributions, so they are the same on every
// standard library).
//
//   SelectTopScore     the highest score, ties broken uniformly at random
//                      (kube-scheduler's selectHost).
//   AliasSampler       index i with probability weights[i] / Σ weights;
//                      Walker's alias method with Vose's O(n) construction,
//                      O(1) per draw.
//   PrefixSumSampler   the same distribution by prefix sums and binary
//                      search, O(log n) per draw; the simple reference.
//
// For both samplers: all weights zero means uniform; a zero-weight index is
// never drawn otherwise; negative weights count as zero. Build reuses the
// sampler's buffers, and Sample neither allocates nor changes the sampler, so
// one built sampler may be read by many threads (each with its own generator).
// Build must not run concurrently with anything else on the same sampler.

#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

namespace berth::scheduler {

// The index of the highest score; among equal highest scores each is chosen
// with the same probability (reservoir sampling, one pass, no allocation).
// REQUIRES: !scores.empty().
size_t SelectTopScore(std::span<const int64_t> scores, std::mt19937_64& rng);

class AliasSampler {
 public:
  // Prepares draws over weights.size() indices. O(n).
  void Build(std::span<const int64_t> weights);
  // An index in [0, size()). O(1): one column, at most one biased coin.
  // REQUIRES: size() > 0.
  size_t Sample(std::mt19937_64& rng) const;
  size_t size() const { return alias_.size(); }

 private:
  // Column i keeps i when a uniform draw from [0, total_) is below
  // threshold_[i], else yields alias_[i]. A full column has alias_[i] == i and
  // needs no coin; a zero-weight index has threshold 0.
  std::vector<uint64_t> threshold_;
  std::vector<uint32_t> alias_;
  uint64_t total_ = 0;  // Σ weights (scaled to fit 64 bits); 0: uniform
  // Vose's construction with weights[i]·n held in `scaled` (64 or 128 bits).
  template <typename Wide>
  void FillColumns(std::span<const int64_t> weights, int shift, uint64_t total, std::vector<Wide>& scaled);
  // Build's scratch space, kept so that rebuilding does not allocate.
  std::vector<uint64_t> scaled64_;
  std::vector<unsigned __int128> scaled_;
  std::vector<uint32_t> small_, large_;
};

class PrefixSumSampler {
 public:
  // Prepares draws over weights.size() indices. O(n).
  void Build(std::span<const int64_t> weights);
  // An index in [0, size()). O(log n).
  // REQUIRES: size() > 0.
  size_t Sample(std::mt19937_64& rng) const;
  size_t size() const { return prefix_.size(); }

 private:
  std::vector<uint64_t> prefix_;  // prefix_[i] = Σ weights[0..i], after scaling to fit 64 bits
};

}  // namespace berth::scheduler
