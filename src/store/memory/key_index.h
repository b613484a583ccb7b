#pragma once
// The store's key index: key → entry (that key's versions), entries staying
// put until erased. Lookups by key go through an open-addressing hash table;
// the keys' sorted order, which only lists and snapshots walk, is kept
// lazily: a new key that sorts after every ordered key is appended to the
// order at once (keys created in ascending order, a snapshot being
// recovered), any other waits in an unsorted list until the next ordered walk
// merges it in (Sort). A create so costs a hash insertion instead of a walk
// down a tree of every key, whose cache misses were most of an in-memory
// create; a list pays, once, for ordering the keys created since the last one.
//
// Not thread-safe: the store guards it with its index lock. Find, ForEach and
// the ordered walk only read; FindOrInsert, Erase and Sort write.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace berth::store {

template <class Value>
class KeyIndex {
 public:
  struct Entry {
    explicit Entry(std::string_view k) : key(k) {}
    const std::string key;
    Value value{};
    bool erased = false;  // set by Erase; the entry is freed by the next Sort
  };
  using const_iterator = typename std::vector<Entry*>::const_iterator;

  KeyIndex() : slots_(kMinSlots) {}
  ~KeyIndex() {
    for (Entry* e : ordered_) delete e;
    for (Entry* e : unordered_) delete e;
  }
  KeyIndex(const KeyIndex&) = delete;
  KeyIndex& operator=(const KeyIndex&) = delete;

  // Live entries.
  size_t size() const { return size_; }

  Entry* Find(std::string_view key) const {
    const uint64_t hash = Hash(key);
    for (size_t i = hash & Mask(); slots_[i].entry != nullptr; i = (i + 1) & Mask()) {
      if (slots_[i].hash == hash && slots_[i].entry->key == key) return slots_[i].entry;
    }
    return nullptr;
  }

  // The entry of `key`, made with a default Value when absent.
  Entry* FindOrInsert(std::string_view key) {
    const uint64_t hash = Hash(key);
    size_t i = hash & Mask();
    for (; slots_[i].entry != nullptr; i = (i + 1) & Mask()) {
      if (slots_[i].hash == hash && slots_[i].entry->key == key) return slots_[i].entry;
    }
    if ((size_ + 1) * 4 > slots_.size() * 3) {  // load factor at most 3/4
      Grow();
      for (i = hash & Mask(); slots_[i].entry != nullptr; i = (i + 1) & Mask()) {
      }
    }
    auto* entry = new Entry(key);
    slots_[i] = {hash, entry};
    ++size_;
    if (unordered_.empty() && (ordered_.empty() || ordered_.back()->key < entry->key)) {
      ordered_.push_back(entry);
    } else {
      unordered_.push_back(entry);
    }
    return entry;
  }

  // Loading keys in ascending order into a fresh index (a snapshot's, at
  // recovery): appends an entry for `key` to the order without making it
  // findable yet; FinishLoad hashes every loaded key in one pass, into a table
  // sized once and with its slots prefetched, instead of a cache miss and
  // some growth per key. Every other call requires FinishLoad first. A key
  // out of order (a duplicate among them) is inserted as FindOrInsert does.
  Entry* Load(std::string_view key) {
    if (!unordered_.empty() || (!ordered_.empty() && !(ordered_.back()->key < key))) {
      FinishLoad();
      return FindOrInsert(key);
    }
    auto* entry = new Entry(key);
    ordered_.push_back(entry);
    ++size_;
    ++loading_;
    return entry;
  }
  void FinishLoad() {
    if (loading_ == 0) return;
    size_t slots = slots_.size();
    while (size_ * 4 > slots * 3) slots *= 2;
    if (slots != slots_.size()) Rehash(slots);
    const auto loaded = ordered_.end() - static_cast<std::ptrdiff_t>(loading_);
    std::vector<uint64_t> hashes;
    hashes.reserve(loading_);
    for (auto it = loaded; it != ordered_.end(); ++it) hashes.push_back(Hash((*it)->key));
    constexpr size_t kAhead = 8;
    for (size_t i = 0; i < hashes.size(); ++i) {
      if (i + kAhead < hashes.size()) __builtin_prefetch(&slots_[hashes[i + kAhead] & Mask()], 1);
      size_t slot = hashes[i] & Mask();
      while (slots_[slot].entry != nullptr) slot = (slot + 1) & Mask();
      slots_[slot] = {hashes[i], loaded[static_cast<std::ptrdiff_t>(i)]};
    }
    loading_ = 0;
  }

  // Removes `entry` (one of this index's, live) from lookups; its memory stays
  // until the next Sort, which runs by itself once erased entries outnumber
  // live ones.
  void Erase(Entry* entry) {
    size_t i = Hash(entry->key) & Mask();
    while (slots_[i].entry != entry) i = (i + 1) & Mask();
    EraseSlot(i);
    entry->erased = true;
    --size_;
    if (++erased_ > kMinErasedToCompact && erased_ > size_) Sort();
  }

  // Whether the ordered walk below may run (else Sort first).
  bool Sorted() const { return unordered_.empty() && erased_ == 0; }

  // Merges the unordered keys into the order and frees erased entries.
  void Sort() {
    if (Sorted()) return;
    auto by_key = [](const Entry* a, const Entry* b) { return a->key < b->key; };
    std::sort(unordered_.begin(), unordered_.end(), by_key);
    std::vector<Entry*> merged;
    merged.reserve(size_);
    auto keep = [&](Entry* e) {
      if (e->erased) {
        delete e;
      } else {
        merged.push_back(e);
      }
    };
    auto a = ordered_.begin(), b = unordered_.begin();
    while (a != ordered_.end() && b != unordered_.end()) keep(by_key(*b, *a) ? *b++ : *a++);
    std::for_each(a, ordered_.end(), keep);
    std::for_each(b, unordered_.end(), keep);
    ordered_ = std::move(merged);
    unordered_.clear();
    erased_ = 0;
  }

  // The ordered walk. REQUIRES: Sorted().
  const_iterator begin() const { return ordered_.begin(); }
  const_iterator end() const { return ordered_.end(); }
  // The first entry whose key is not less than `key` / greater than `key`.
  const_iterator LowerBound(std::string_view key) const {
    return std::lower_bound(ordered_.begin(), ordered_.end(), key,
                            [](const Entry* e, std::string_view k) { return e->key < k; });
  }
  const_iterator UpperBound(std::string_view key) const {
    return std::upper_bound(ordered_.begin(), ordered_.end(), key,
                            [](std::string_view k, const Entry* e) { return k < e->key; });
  }

  // Calls fn(entry) for every live entry, in no particular order.
  template <class Fn>
  void ForEach(Fn&& fn) const {
    for (const Slot& s : slots_) {
      if (s.entry != nullptr) fn(*s.entry);
    }
  }

 private:
  struct Slot {
    uint64_t hash = 0;
    Entry* entry = nullptr;  // nullptr: empty
  };
  static constexpr size_t kMinSlots = 64;
  static constexpr size_t kMinErasedToCompact = 1024;

  static uint64_t Hash(std::string_view key) { return std::hash<std::string_view>{}(key); }
  size_t Mask() const { return slots_.size() - 1; }

  void Grow() { Rehash(slots_.size() * 2); }
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

  std::vector<Slot> slots_;        // a power of two in size
  size_t size_ = 0;                // live entries
  std::vector<Entry*> ordered_;    // by key; may hold erased entries until Sort
  std::vector<Entry*> unordered_;  // made since the last Sort, not yet in order
  size_t erased_ = 0;              // erased entries not yet freed
  size_t loading_ = 0;             // entries at the end of ordered_ Load made, not yet hashed
};

}  // namespace berth::store
