#pragma once
// What users choose by name — scheduler plugins in a configuration,
// admission plugins and controllers on the command line — is registered one
// way: a name, what it registers (a factory, mostly) and a line of help.
// Lookups, the list of names in error messages and the flags' help texts
// all come from the one registry, so a name is never typed twice.
//
// Names keep their registration order (admission plugins and controllers
// run in it). Registering a name again replaces its entry in place: a binary
// of one's own may replace an in-tree plugin.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace berth {

template <typename T>
class NamedRegistry {
 public:
  struct Entry {
    std::string name;
    T value;
    std::string help;  // one line, without a full stop; may be empty
  };

  void Register(std::string name, T value, std::string help = {}) {
    for (Entry& entry : entries_) {
      if (entry.name == name) {
        entry.value = std::move(value);
        entry.help = std::move(help);
        return;
      }
    }
    entries_.push_back(Entry{std::move(name), std::move(value), std::move(help)});
  }

  // nullptr when `name` is not registered.
  const T* Find(std::string_view name) const {
    for (const Entry& entry : entries_) {
      if (entry.name == name) return &entry.value;
    }
    return nullptr;
  }

  // In registration order.
  const std::vector<Entry>& entries() const { return entries_; }

  std::vector<std::string> Names() const {
    std::vector<std::string> names;
    names.reserve(entries_.size());
    for (const Entry& entry : entries_) names.push_back(entry.name);
    return names;
  }

  // The names joined by `separator`, for help texts and error messages.
  std::string JoinedNames(std::string_view separator = ", ") const {
    std::string joined;
    for (const Entry& entry : entries_) {
      if (!joined.empty()) joined += separator;
      joined += entry.name;
    }
    return joined;
  }

 private:
  std::vector<Entry> entries_;
};

}  // namespace berth
