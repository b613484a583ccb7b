#include "controllers/endpoints/subsets.h"

#include <algorithm>
#include <boost/json.hpp>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <tuple>

#include "api/json_fields.h"

namespace berth::controllers {

namespace json = boost::json;

namespace {

std::string AddressKey(const json::object& address) {
  return std::string(api::StringAt(address, "ip")) + '\x1f' +
         std::string(api::StringAt(api::ObjectAt(address, "targetRef"), "uid"));
}

// Ports ordered by name, number, protocol; the key also tells ports apart.
std::string PortKey(const json::object& port) {
  char number[16];
  std::snprintf(number, sizeof number, "%010lld",
                static_cast<long long>(api::IntAt(&port, "port")));
  const json::value* app = port.if_contains("appProtocol");
  return std::string(api::StringAt(port, "name")) + '\x1f' + number + '\x1f' +
         std::string(api::StringAt(port, "protocol")) + '\x1f' +
         (app && app->is_string() ? std::string(app->get_string()) : std::string());
}

// kube's LessEndpointAddress: ip (byte order), then target uid.
bool LessAddress(const json::value& a, const json::value& b) {
  auto ka = std::make_tuple(api::StringAt(a.if_object(), "ip"),
                            api::StringAt(api::ObjectAt(a.if_object(), "targetRef"), "uid"));
  auto kb = std::make_tuple(api::StringAt(b.if_object(), "ip"),
                            api::StringAt(api::ObjectAt(b.if_object(), "targetRef"), "uid"));
  return ka < kb;
}

// The port of addresses offered without a port (a headless Service without
// ports): kube's sentinel, dropped again when the subsets are built.
const std::string kNoPort = std::string(1, '\0');

}  // namespace

json::array RepackSubsets(const std::vector<AddressForPort>& entries) {
  std::map<std::string, const json::object*> addresses;  // address key → first seen
  struct PortAddresses {
    const json::object* port = nullptr;
    std::map<std::string, bool> ready;  // address key → ready
  };
  std::map<std::string, PortAddresses> by_port;
  for (const auto& entry : entries) {
    std::string address_key = AddressKey(entry.address);
    addresses.try_emplace(address_key, &entry.address);
    std::string port_key = entry.port ? PortKey(*entry.port) : kNoPort;
    PortAddresses& pa = by_port[port_key];
    if (entry.port) pa.port = &*entry.port;
    auto [it, added] = pa.ready.try_emplace(address_key, entry.ready);
    if (!added && it->second) it->second = entry.ready;  // not ready wins
  }
  // Ports offered by exactly the same addresses (and readiness) share a subset.
  struct Subset {
    const std::map<std::string, bool>* ready = nullptr;
    std::vector<std::string> port_keys;
  };
  std::map<std::string, Subset> by_addresses;
  for (const auto& [port_key, pa] : by_port) {
    std::string set_key;
    for (const auto& [address_key, ready] : pa.ready)
      set_key += address_key + (ready ? "\x1dR" : "\x1dN") + '\x1e';
    Subset& s = by_addresses[set_key];
    s.ready = &pa.ready;
    s.port_keys.push_back(port_key);
  }
  std::vector<std::pair<std::string, json::object>> subsets;  // sort key → subset
  for (const auto& [set_key, s] : by_addresses) {
    json::array ready, not_ready, ports;
    for (const auto& [address_key, is_ready] : *s.ready) {
      (is_ready ? ready : not_ready).push_back(*addresses.at(address_key));
    }
    std::sort(ready.begin(), ready.end(), LessAddress);
    std::sort(not_ready.begin(), not_ready.end(), LessAddress);
    std::string sort_key;
    for (const auto& port_key : s.port_keys) {  // already in port order
      sort_key += port_key + '\x1e';
      if (port_key != kNoPort) ports.push_back(*by_port.at(port_key).port);
    }
    sort_key += '\x1d' + set_key;
    json::object subset;
    if (!ready.empty()) subset["addresses"] = std::move(ready);
    if (!not_ready.empty()) subset["notReadyAddresses"] = std::move(not_ready);
    if (!ports.empty()) subset["ports"] = std::move(ports);
    subsets.emplace_back(std::move(sort_key), std::move(subset));
  }
  std::sort(subsets.begin(), subsets.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  json::array out;
  for (auto& [key, subset] : subsets) out.push_back(std::move(subset));
  return out;
}

namespace {

size_t Count(const json::value& subset, std::string_view field) {
  const json::array* list = api::ArrayAt(subset.if_object(), field);
  return list ? list->size() : 0;
}

void Keep(json::object& subset, std::string_view field, size_t n) {
  json::array* list = subset.contains(field) ? subset.at(field).if_array() : nullptr;
  if (!list || list->size() <= n) return;
  list->resize(n);
  if (list->empty()) subset.erase(field);
}

}  // namespace

size_t CountAddresses(const json::array& subsets) {
  size_t n = 0;
  for (const auto& s : subsets) n += Count(s, "addresses") + Count(s, "notReadyAddresses");
  return n;
}

bool TruncateSubsets(json::array& subsets, size_t max_capacity) {
  size_t total_ready = 0, total_not_ready = 0;
  for (const auto& s : subsets) {
    total_ready += Count(s, "addresses");
    total_not_ready += Count(s, "notReadyAddresses");
  }
  if (total_ready + total_not_ready <= max_capacity) return false;
  const bool truncate_ready = total_ready > max_capacity;
  const size_t max = truncate_ready ? max_capacity : max_capacity - total_ready;
  const size_t total = truncate_ready ? total_ready : total_not_ready;
  size_t can_be_added = max;
  for (auto& s : subsets) {
    json::object* subset = s.if_object();
    if (!subset) continue;
    const size_t in_subset = Count(s, truncate_ready ? "addresses" : "notReadyAddresses");
    size_t to_be_added = static_cast<size_t>(std::ceil(
        static_cast<double>(in_subset) / static_cast<double>(total) * static_cast<double>(max)));
    to_be_added = std::min(to_be_added, can_be_added);
    if (truncate_ready) {
      Keep(*subset, "addresses", to_be_added);
      subset->erase("notReadyAddresses");
      can_be_added -= Count(s, "addresses");
    } else {
      Keep(*subset, "notReadyAddresses", to_be_added);
      can_be_added -= Count(s, "notReadyAddresses");
    }
  }
  return true;
}

}  // namespace berth::controllers
