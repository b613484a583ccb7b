#pragma once
// A set of labels: key/value pairs, sorted by key, unique keys. Small and
// cache-friendly; selectors match against it.

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace berth::api {

class Labels {
 public:
  using Entry = std::pair<std::string, std::string>;

  Labels() = default;
  // Entries in any order; a later duplicate key wins.
  Labels(std::initializer_list<Entry> entries) {
    for (const auto& e : entries) Set(e.first, e.second);
  }

  std::optional<std::string_view> Get(std::string_view key) const {
    auto it = Find(key);
    if (it == entries_.end() || it->first != key) return std::nullopt;
    return std::string_view(it->second);
  }
  bool Has(std::string_view key) const { return Get(key).has_value(); }
  void Set(std::string_view key, std::string_view value) {
    auto it = Find(key);
    if (it != entries_.end() && it->first == key) {
      it->second = value;
    } else {
      entries_.emplace(it, std::string(key), std::string(value));
    }
  }
  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  auto begin() const { return entries_.begin(); }
  auto end() const { return entries_.end(); }
  bool operator==(const Labels&) const = default;

 private:
  std::vector<Entry>::iterator Find(std::string_view key) {
    return std::lower_bound(entries_.begin(), entries_.end(), key,
                            [](const Entry& e, std::string_view k) { return e.first < k; });
  }
  std::vector<Entry>::const_iterator Find(std::string_view key) const {
    return std::lower_bound(entries_.begin(), entries_.end(), key,
                            [](const Entry& e, std::string_view k) { return e.first < k; });
  }
  std::vector<Entry> entries_;
};

}  // namespace berth::api
