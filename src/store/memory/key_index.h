#pragma once
// The store's key index: key → entry (that key's versions), entries staying
// put until erased. Lookups by key go through an open-addressing hash table.
// The keys' sorted order, which only lists and snapshots walk, is kept lazily
// and per part of the key space, a part being a resource ("/<group>/<resource>/",
// the key up to its third slash): a new key that sorts after every ordered key
// of its part is appended to the part's order at once (keys created in
// ascending order, a snapshot being recovered), any other waits in the part's
// unsorted list until an ordered walk over that part merges it in (Sort). A
// create so costs a hash insertion instead of a walk down a tree of every
// key, whose cache misses were most of an in-memory create; a list pays, once,
// for ordering the keys of its own resources created since the last list of
// them (a list of PriorityClasses for each pod create orders nothing).
//
// Not thread-safe: the store guards it with its index lock. Find, ForEach,
// Sorted and Walk only read; Load, FinishLoad, FindOrInsert, Erase and Sort
// write.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace berth::store {

template <class Value>
class KeyIndex {
  struct Part;

 public:
  struct Entry {
    Entry(std::string_view k, Part* p) : key(k), part(p) {}
    const std::string key;
    Value value{};

   private:
    friend class KeyIndex;
    Part* const part;
    bool erased = false;  // set by Erase; the entry is freed by the next Sort of its part
  };

  KeyIndex() : slots_(kMinSlots) {}
  ~KeyIndex() {
    for (auto& [name, part] : parts_) {
      for (Entry* e : part.ordered) delete e;
      for (Entry* e : part.unordered) delete e;
    }
  }
  KeyIndex(const KeyIndex&) = delete;
  KeyIndex& operator=(const KeyIndex&) = delete;

  // Live entries.
  size_t size() const { return size_; }

  // A key's hash, for the overloads below: a caller that looks a key up and
  // may then insert it hashes it once (and may do so outside its lock).
  static uint64_t Hash(std::string_view key) { return std::hash<std::string_view>{}(key); }

  Entry* Find(std::string_view key) const { return Find(key, Hash(key)); }
  // REQUIRES: hash == Hash(key).
  Entry* Find(std::string_view key, uint64_t hash) const {
    for (size_t i = hash & Mask(); slots_[i].entry != nullptr; i = (i + 1) & Mask()) {
      if (slots_[i].hash == hash && slots_[i].entry->key == key) return slots_[i].entry;
    }
    return nullptr;
  }

  // The entry of `key`, made with a default Value when absent.
  Entry* FindOrInsert(std::string_view key) { return FindOrInsert(key, Hash(key)); }
  // REQUIRES: hash == Hash(key).
  Entry* FindOrInsert(std::string_view key, uint64_t hash) {
    size_t i = hash & Mask();
    for (; slots_[i].entry != nullptr; i = (i + 1) & Mask()) {
      if (slots_[i].hash == hash && slots_[i].entry->key == key) return slots_[i].entry;
    }
    if ((size_ + 1) * 4 > slots_.size() * 3) {  // load factor at most 3/4
      Rehash(slots_.size() * 2);
      for (i = hash & Mask(); slots_[i].entry != nullptr; i = (i + 1) & Mask()) {
      }
    }
    Part& part = PartFor(key);
    auto* entry = new Entry(key, &part);
    slots_[i] = {hash, entry};
    ++size_;
    ++part.live;
    if (part.unordered.empty() && (part.ordered.empty() || part.ordered.back()->key < entry->key)) {
      part.ordered.push_back(entry);
    } else {
      part.unordered.push_back(entry);
    }
    return entry;
  }

  // Loading keys in ascending order into a fresh index (a snapshot's, at
  // recovery): appends an entry for `key` to its part's order without making
  // it findable yet; FinishLoad hashes every loaded key in one pass, into a
  // table sized once and with its slots prefetched, instead of a cache miss
  // and some growth per key. Every other call requires FinishLoad first. A
  // key out of order (a duplicate among them) is inserted as FindOrInsert does.
  Entry* Load(std::string_view key) {
    Part& part = PartFor(key);
    if (!part.unordered.empty() || (!part.ordered.empty() && !(part.ordered.back()->key < key))) {
      FinishLoad();
      return FindOrInsert(key);
    }
    auto* entry = new Entry(key, &part);
    part.ordered.push_back(entry);
    loading_.push_back(entry);
    ++size_;
    ++part.live;
    return entry;
  }
  void FinishLoad() {
    if (loading_.empty()) return;
    size_t slots = slots_.size();
    while (size_ * 4 > slots * 3) slots *= 2;
    if (slots != slots_.size()) Rehash(slots);
    std::vector<uint64_t> hashes;
    hashes.reserve(loading_.size());
    for (const Entry* e : loading_) hashes.push_back(Hash(e->key));
    constexpr size_t kAhead = 8;
    for (size_t i = 0; i < hashes.size(); ++i) {
      if (i + kAhead < hashes.size()) __builtin_prefetch(&slots_[hashes[i + kAhead] & Mask()], 1);
      size_t slot = hashes[i] & Mask();
      while (slots_[slot].entry != nullptr) slot = (slot + 1) & Mask();
      slots_[slot] = {hashes[i], loading_[i]};
    }
    loading_.clear();
    loading_.shrink_to_fit();
  }

  // Removes `entry` (one of this index's, live) from lookups; its memory stays
  // until the next Sort of its part, which runs by itself once the part's
  // erased entries outnumber its live ones.
  void Erase(Entry* entry) {
    size_t i = Hash(entry->key) & Mask();
    while (slots_[i].entry != entry) i = (i + 1) & Mask();
    EraseSlot(i);
    entry->erased = true;
    --size_;
    Part& part = *entry->part;
    --part.live;
    if (++part.erased > kMinErasedToCompact && part.erased > part.live) SortPart(part);
  }

  // Whether Walk(prefix, …) may run now (else Sort(prefix) first).
  bool Sorted(std::string_view prefix) const {
    for (const auto& [name, part] : parts_) {
      if (Overlaps(name, prefix) && !(part.unordered.empty() && part.erased == 0)) return false;
    }
    return true;
  }

  // Orders the parts that may hold keys under `prefix` ("": all): merges their
  // unordered keys in and frees their erased entries.
  void Sort(std::string_view prefix = "") {
    for (auto& [name, part] : parts_) {
      if (Overlaps(name, prefix)) SortPart(part);
    }
  }

  // Calls fn(entry), in key order, for the live entries whose keys start with
  // `prefix` and come at or after `start` (after it, when `after`), until fn
  // returns false. REQUIRES: Sorted(prefix); `start` starts with `prefix`.
  template <class Fn>
  void Walk(std::string_view prefix, std::string_view start, bool after, Fn&& fn) const {
    using It = typename std::vector<Entry*>::const_iterator;
    struct Run {
      It at, end;
    };
    std::vector<Run> runs;  // one per part in range: usually one
    for (const auto& [name, part] : parts_) {
      if (!Overlaps(name, prefix)) continue;
      const auto& v = part.ordered;
      It at = after
                  ? std::upper_bound(v.begin(), v.end(), start,
                                     [](std::string_view k, const Entry* e) { return k < e->key; })
                  : std::lower_bound(v.begin(), v.end(), start,
                                     [](const Entry* e, std::string_view k) { return e->key < k; });
      if (at != v.end()) runs.push_back({at, v.end()});
    }
    while (!runs.empty()) {
      auto next = std::min_element(runs.begin(), runs.end(), [](const Run& a, const Run& b) {
        return (*a.at)->key < (*b.at)->key;
      });
      const Entry* entry = *next->at;
      if (!entry->key.starts_with(prefix)) {
        runs.erase(next);  // this part has nothing more under the prefix
        continue;
      }
      if (!fn(*entry)) return;
      if (++next->at == next->end) runs.erase(next);
    }
  }

  // A key's resource, which names its part: the key up to and including its
  // third slash ("/<group>/<resource>/"), or its last one when it has fewer.
  static std::string_view ResourceOf(std::string_view key) {
    size_t end = 0;
    for (int slashes = 0; slashes < 3; ++slashes) {
      const size_t at = key.find('/', end);
      if (at == std::string_view::npos) break;
      end = at + 1;
    }
    return key.substr(0, end);
  }

  // Calls fn(entry) for every live entry, in no particular order.
  template <class Fn>
  void ForEach(Fn&& fn) const {
    for (const Slot& s : slots_) {
      if (s.entry != nullptr) fn(*s.entry);
    }
  }

 private:
  struct Part {
    std::vector<Entry*> ordered;    // by key; may hold erased entries until sorted
    std::vector<Entry*> unordered;  // made since the last sort, not yet in order
    size_t live = 0;
    size_t erased = 0;  // erased entries not yet freed
  };
  struct Slot {
    uint64_t hash = 0;
    Entry* entry = nullptr;  // nullptr: empty
  };
  static constexpr size_t kMinSlots = 64;
  static constexpr size_t kMinErasedToCompact = 1024;

  size_t Mask() const { return slots_.size() - 1; }

  // Whether part `name` may hold keys under `prefix`: every key starts with
  // its part's name, so one of the two is a prefix of the other.
  static bool Overlaps(std::string_view name, std::string_view prefix) {
    return name.starts_with(prefix) || prefix.starts_with(name);
  }
  Part& PartFor(std::string_view key) {
    const std::string_view name = ResourceOf(key);
    auto it = parts_.find(name);
    if (it == parts_.end()) it = parts_.emplace(std::string(name), Part{}).first;
    return it->second;
  }

  void SortPart(Part& part) {
    if (part.unordered.empty() && part.erased == 0) return;
    auto by_key = [](const Entry* a, const Entry* b) { return a->key < b->key; };
    std::sort(part.unordered.begin(), part.unordered.end(), by_key);
    std::vector<Entry*> merged;
    merged.reserve(part.live);
    auto keep = [&](Entry* e) {
      if (e->erased) {
        delete e;
      } else {
        merged.push_back(e);
      }
    };
    auto a = part.ordered.begin(), b = part.unordered.begin();
    while (a != part.ordered.end() && b != part.unordered.end()) keep(by_key(*b, *a) ? *b++ : *a++);
    std::for_each(a, part.ordered.end(), keep);
    std::for_each(b, part.unordered.end(), keep);
    part.ordered = std::move(merged);
    part.unordered.clear();
    part.erased = 0;
  }

  void Rehash(size_t slots) {
    std::vector<Slot> old(slots);
    old.swap(slots_);
    for (const Slot& s : old) {
      if (s.entry == nullptr) continue;
      size_t i = s.hash & Mask();
      while (slots_[i].entry != nullptr) i = (i + 1) & Mask();
      slots_[i] = s;
    }
  }

  // Linear probing's deletion without tombstones: later slots of the same
  // probe run move back into the hole unless their home lies (cyclically)
  // after it.
  void EraseSlot(size_t hole) {
    for (size_t j = (hole + 1) & Mask(); slots_[j].entry != nullptr; j = (j + 1) & Mask()) {
      const size_t home = slots_[j].hash & Mask();
      const bool stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
      if (stays) continue;
      slots_[hole] = slots_[j];
      hole = j;
    }
    slots_[hole] = Slot{};
  }

  std::vector<Slot> slots_;  // a power of two in size
  size_t size_ = 0;          // live entries
  // By name; std::map keeps each Part where it is (entries point at theirs).
  std::map<std::string, Part, std::less<>> parts_;
  std::vector<Entry*> loading_;  // made by Load, not yet hashed
};

}  // namespace berth::store
