#include "api/resources.h"

#include <algorithm>

#include <boost/json/value.hpp>

#include "api/quantity.h"
#include "api/quantity_json.h"

namespace berth::api {

namespace json = boost::json;

namespace {

int64_t* CommonField(ResourceList& list, std::string_view name) {
  int64_t ResourceList::*field = CommonResourceField(name);
  return field ? &(list.*field) : nullptr;
}

auto FindScalar(const std::vector<std::pair<std::string, int64_t>>& scalars, std::string_view name) {
  return std::lower_bound(scalars.begin(), scalars.end(), name,
                          [](const auto& entry, std::string_view n) { return entry.first < n; });
}

template <typename Combine>
void Merge(ResourceList& into, const ResourceList& from, Combine combine) {
  into.milli_cpu = combine(into.milli_cpu, from.milli_cpu);
  into.memory = combine(into.memory, from.memory);
  into.ephemeral_storage = combine(into.ephemeral_storage, from.ephemeral_storage);
  into.pods = combine(into.pods, from.pods);
  for (const auto& [name, amount] : from.scalars) into.Set(name, combine(into.Get(name), amount));
}

}  // namespace

int64_t ResourceList::*CommonResourceField(std::string_view name) {
  if (name == kResourceCpu) return &ResourceList::milli_cpu;
  if (name == kResourceMemory) return &ResourceList::memory;
  if (name == kResourceEphemeralStorage) return &ResourceList::ephemeral_storage;
  if (name == kResourcePods) return &ResourceList::pods;
  return nullptr;
}

int64_t ResourceList::Get(std::string_view name) const {
  if (const int64_t* field = CommonField(const_cast<ResourceList&>(*this), name)) return *field;
  auto it = FindScalar(scalars, name);
  return it != scalars.end() && it->first == name ? it->second : 0;
}

void ResourceList::Set(std::string_view name, int64_t amount) {
  if (int64_t* field = CommonField(*this, name)) {
    *field = amount;
    return;
  }
  auto it = FindScalar(scalars, name);
  if (it != scalars.end() && it->first == name) {
    scalars[it - scalars.begin()].second = amount;
  } else {
    scalars.emplace(it, std::string(name), amount);
  }
}

bool ResourceList::HasScalar(std::string_view name) const {
  auto it = FindScalar(scalars, name);
  return it != scalars.end() && it->first == name;
}

void ResourceList::Add(const ResourceList& other) {
  Merge(*this, other, [](int64_t a, int64_t b) { return a + b; });
}

void ResourceList::Subtract(const ResourceList& other) {
  Merge(*this, other, [](int64_t a, int64_t b) { return a - b; });
}

void ResourceList::SetMax(const ResourceList& other) {
  Merge(*this, other, [](int64_t a, int64_t b) { return std::max(a, b); });
}

Result<ResourceList> ParseResourceList(const json::value& value, std::string_view path,
                                       std::vector<std::string>* present) {
  ResourceList list;
  if (value.is_null()) return list;
  if (!value.is_object()) return Status::BadRequest(std::string(path) + ": expected an object");
  for (const auto& entry : value.get_object()) {
    std::string_view name(entry.key().data(), entry.key().size());
    std::string where = std::string(path) + "[" + std::string(name) + "]";
    // A string or, as Kubernetes' decoder accepts, a bare JSON number.
    Result<Quantity> quantity = QuantityFromJson(entry.value());
    if (!quantity.ok()) return Status::BadRequest(where + ": " + quantity.status().message());
    list.Set(name, name == kResourceCpu ? quantity.value().MilliValue() : quantity.value().Value());
    if (present) present->emplace_back(name);
  }
  return list;
}

}  // namespace berth::api
