#pragma once
// A fresh directory under the system's temporary directory ($TMPDIR or
// /tmp), removed with everything in it when the object is destroyed. The
// benchmarks' durable stores live in one, so no run sees another's data.

#include <string>

#include "api/status.h"

namespace berth::perf {

class TemporaryDirectory {
 public:
  // "<tmp>/<prefix>XXXXXX"; Internal naming the pattern when it cannot be made.
  static Result<TemporaryDirectory> Create(const std::string& prefix);
  TemporaryDirectory(TemporaryDirectory&& other) noexcept;
  TemporaryDirectory& operator=(TemporaryDirectory&&) = delete;
  ~TemporaryDirectory();

  const std::string& path() const { return path_; }

 private:
  explicit TemporaryDirectory(std::string path) : path_(std::move(path)) {}
  std::string path_;  // "" once moved from
};

}  // namespace berth::perf
