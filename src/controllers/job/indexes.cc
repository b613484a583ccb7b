#include "controllers/job/indexes.h"

#include <algorithm>
#include <charconv>

#include "api/json_fields.h"

namespace berth::controllers::job {

namespace {

std::optional<int64_t> ParseIndex(std::string_view text) {
  if (text.empty() || (text.size() > 1 && text[0] == '0')) return std::nullopt;
  int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

}  // namespace

IndexSet IndexSet::Parse(std::string_view text, int64_t completions) {
  IndexSet set;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    std::string_view part = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    const size_t dash = part.find('-');
    auto first = ParseIndex(part.substr(0, dash));
    auto last = dash == std::string_view::npos ? first : ParseIndex(part.substr(dash + 1));
    if (!first || !last || *last < *first || *first >= completions) continue;
    const int64_t end = std::min(*last, completions - 1);
    for (int64_t i = *first; i <= end; ++i) set.Add(i);
  }
  return set;
}

void IndexSet::Add(int64_t index) {
  auto it = std::lower_bound(intervals_.begin(), intervals_.end(), index,
                             [](const Interval& iv, int64_t i) { return iv.last < i; });
  if (it != intervals_.end() && it->first <= index) return;  // already in
  const bool joins_previous = it != intervals_.begin() && std::prev(it)->last + 1 == index;
  const bool joins_next = it != intervals_.end() && it->first == index + 1;
  if (joins_previous && joins_next) {
    std::prev(it)->last = it->last;
    intervals_.erase(it);
  } else if (joins_previous) {
    std::prev(it)->last = index;
  } else if (joins_next) {
    it->first = index;
  } else {
    intervals_.insert(it, Interval{index, index});
  }
}

bool IndexSet::Contains(int64_t index) const {
  auto it = std::lower_bound(intervals_.begin(), intervals_.end(), index,
                             [](const Interval& iv, int64_t i) { return iv.last < i; });
  return it != intervals_.end() && it->first <= index;
}

int64_t IndexSet::Count() const {
  int64_t n = 0;
  for (const auto& iv : intervals_) n += iv.last - iv.first + 1;
  return n;
}

std::string IndexSet::String() const {
  std::string out;
  for (const auto& iv : intervals_) {
    if (!out.empty()) out += ',';
    out += std::to_string(iv.first);
    // kube writes a pair as two indexes ("3,4"), longer runs as a range ("3-5").
    if (iv.last == iv.first + 1) {
      out += ',' + std::to_string(iv.last);
    } else if (iv.last > iv.first) {
      out += '-' + std::to_string(iv.last);
    }
  }
  return out;
}

std::optional<int64_t> CompletionIndex(const api::Object& pod) {
  return ParseIndex(api::Annotation(pod, kCompletionIndexAnnotation));
}

std::vector<int64_t> FirstPendingIndexes(int64_t completions, int64_t count,
                                         const std::vector<const IndexSet*>& skip) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < completions && static_cast<int64_t>(out.size()) < count; ++i) {
    bool taken = false;
    for (const IndexSet* s : skip) taken = taken || s->Contains(i);
    if (!taken) out.push_back(i);
  }
  return out;
}

}  // namespace berth::controllers::job
