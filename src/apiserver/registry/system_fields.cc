#include "apiserver/registry/system_fields.h"

#include <random>

#include <chrono>
#include <cstdio>
#include <ctime>

#include <boost/json.hpp>

#include "api/json_fields.h"

namespace berth::apiserver {

namespace json = boost::json;

std::string FormatUuidV4(uint64_t hi, uint64_t lo) {
  hi = (hi & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;  // version 4
  lo = (lo & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;  // RFC 4122 variant
  // 8-4-4-4-12 lower-case hex digits; written by hand (snprintf's format
  // parsing was a visible part of every create).
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(36, '-');
  size_t at = 0;
  auto put = [&](uint64_t bits, int digits) {
    for (int i = digits - 1; i >= 0; --i) out[at++] = kHex[(bits >> (4 * i)) & 0xf];
  };
  put(hi >> 32, 8);
  ++at;
  put(hi >> 16, 4);
  ++at;
  put(hi, 4);
  ++at;
  put(lo >> 48, 4);
  ++at;
  put(lo, 12);
  return out;
}

std::string RandomUuidV4() {
  thread_local std::mt19937_64 rng{(uint64_t{std::random_device{}()} << 32) ^ std::random_device{}()};
  const uint64_t hi = rng(), lo = rng();
  return FormatUuidV4(hi, lo);
}

SystemFields::SystemFields(uint64_t seed) : rng_(seed) {}

std::string SystemFields::NewUid() {
  uint64_t hi, lo;
  {
    std::lock_guard lk(mu_);
    hi = rng_();
    lo = rng_();
  }
  return FormatUuidV4(hi, lo);
}

std::string SystemFields::GenerateName(std::string_view base) {
  static constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";
  std::string name(base.substr(0, std::min<size_t>(base.size(), 58)));
  std::lock_guard lk(mu_);
  for (int i = 0; i < 5; ++i) name += kAlphabet[rng_() % kAlphabet.size()];
  return name;
}

void SystemFields::PrepareCreate(api::Kind kind, json::object& object) {
  json::object& meta = api::MutableObject(object, "metadata");
  meta["uid"] = NewUid();
  meta["creationTimestamp"] = NowRfc3339();
  meta.erase("resourceVersion");
  meta.erase("deletionTimestamp");
  meta.erase("deletionGracePeriodSeconds");
  if (api::Info(kind).generation) meta["generation"] = 1;
}

void SystemFields::PrepareUpdate(api::Kind kind, const json::object& current, json::object& next) {
  const json::object* cur_meta = api::ObjectAt(current, "metadata");
  json::object& meta = api::MutableObject(next, "metadata");
  if (cur_meta) {
    for (std::string_view key : {"uid", "creationTimestamp", "deletionTimestamp",
                                 "deletionGracePeriodSeconds", "generation"}) {
      if (auto it = cur_meta->find(key); it != cur_meta->end()) {
        meta[key] = it->value();
      } else {
        meta.erase(key);
      }
    }
  }
  if (api::Info(kind).generation) {
    const json::value* before = current.if_contains("spec");
    const json::value* after = next.if_contains("spec");
    bool changed = (before == nullptr) != (after == nullptr) || (before && *before != *after);
    if (changed) {
      int64_t generation = 0;
      if (auto g = meta.find("generation"); g != meta.end() && g->value().is_int64()) {
        generation = g->value().get_int64();
      }
      meta["generation"] = generation + 1;
    }
  }
}

}  // namespace berth::apiserver
