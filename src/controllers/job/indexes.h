#pragma once
// Completion indexes of Indexed Jobs: which pod runs which index, and the
// index sets a Job's status lists (status.completedIndexes,
// status.failedIndexes) in kube's compressed form: ascending, comma
// separated, runs of three or more consecutive indexes as "first-last"
// ("1,3-5"; a run of two is written "3,4").

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/object.h"

namespace berth::controllers::job {

inline constexpr char kCompletionIndexAnnotation[] = "batch.kubernetes.io/job-completion-index";

// A set of indexes kept as ordered, disjoint, non-adjacent closed intervals.
class IndexSet {
 public:
  IndexSet() = default;
  // Reads kube's form, keeping only indexes below `completions`; malformed
  // parts are skipped (kube logs and ignores them).
  static IndexSet Parse(std::string_view text, int64_t completions);

  void Add(int64_t index);
  bool Contains(int64_t index) const;
  int64_t Count() const;
  // kube's form: "" when empty, else e.g. "0,2-4,7,8".
  std::string String() const;

 private:
  struct Interval {
    int64_t first, last;
  };
  std::vector<Interval> intervals_;
};

// The pod's completion index (its annotation); nullopt when absent or not a
// non-negative decimal integer.
std::optional<int64_t> CompletionIndex(const api::Object& pod);

// The `count` lowest indexes in [0, completions) that are in none of the
// sets `skip`: the indexes for which pods are created next.
std::vector<int64_t> FirstPendingIndexes(int64_t completions, int64_t count,
                                         const std::vector<const IndexSet*>& skip);

}  // namespace berth::controllers::job
