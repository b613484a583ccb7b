#include "perf/temporary_directory.h"

#include <stdlib.h>

#include <filesystem>
#include <utility>

namespace berth::perf {

namespace fs = std::filesystem;

Result<TemporaryDirectory> TemporaryDirectory::Create(const std::string& prefix) {
  std::error_code ec;
  fs::path base = fs::temp_directory_path(ec);
  if (ec) base = "/tmp";
  std::string pattern = (base / (prefix + "XXXXXX")).string();
  if (!mkdtemp(pattern.data()))
    return Status::Internal("cannot create a temporary directory like " + pattern);
  return TemporaryDirectory(pattern);
}

TemporaryDirectory::TemporaryDirectory(TemporaryDirectory&& other) noexcept
    : path_(std::exchange(other.path_, "")) {}

TemporaryDirectory::~TemporaryDirectory() {
  std::error_code ec;
  if (!path_.empty()) fs::remove_all(path_, ec);
}

}  // namespace berth::perf
