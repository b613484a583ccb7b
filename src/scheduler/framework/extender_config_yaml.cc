#include "scheduler/framework/extender_config_yaml.h"

#include <set>
#include <utility>

#include "api/resource_names.h"
#include "api/time/duration.h"
#include "api/validation/name_validation.h"

namespace berth::scheduler {

namespace {

// Go's encoding/json reads a []byte field (certData...) as standard base64
// with padding. nullopt for anything else.
std::optional<std::string> DecodeBase64(std::string_view text) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    int v[4];
    int padding = 0;
    for (int j = 0; j < 4; ++j) {
      char c = text[i + j];
      if (c == '=' && i + 4 == text.size() && j >= 2) {
        ++padding;
        v[j] = 0;
        continue;
      }
      if (padding > 0 || (v[j] = value(c)) < 0) return std::nullopt;
    }
    uint32_t bits = static_cast<uint32_t>(v[0] << 18 | v[1] << 12 | v[2] << 6 | v[3]);
    out += static_cast<char>(bits >> 16);
    if (padding < 2) out += static_cast<char>(bits >> 8 & 0xff);
    if (padding < 1) out += static_cast<char>(bits & 0xff);
  }
  return out;
}

class ExtenderConfigReader {
 public:
  explicit ExtenderConfigReader(YamlFieldReader& reader) : r_(reader) {}

  void Extenders(const YAML::Node& list, const std::string& path,
                 std::vector<ExtenderConfig>& out) {
    if (!r_.ExpectList(list, path) || list.IsNull()) return;
    for (size_t i = 0; i < list.size(); ++i) {
      std::string here = Index(path, i);
      ExtenderConfig extender;
      if (!list[i].IsMap()) {
        r_.Invalid(here, list[i], "must be a map");
      } else {
        Extender(list[i], here, extender);
      }
      out.push_back(std::move(extender));
    }
  }

  void Extender(const YAML::Node& node, const std::string& path, ExtenderConfig& e) {
    const std::pair<std::string_view, std::string*> strings[] = {
        {"urlPrefix", &e.url_prefix},     {"filterVerb", &e.filter_verb},
        {"preemptVerb", &e.preempt_verb}, {"prioritizeVerb", &e.prioritize_verb},
        {"bindVerb", &e.bind_verb},
    };
    const std::pair<std::string_view, bool*> bools[] = {{"enableHTTPS", &e.enable_https},
                                                        {"nodeCacheCapable", &e.node_cache_capable},
                                                        {"ignorable", &e.ignorable}};
    r_.ForEachField(node, path, [&](const std::string& key, const YAML::Node& value) {
      std::string field = Child(path, key);
      for (const auto& [name, target] : strings) {
        if (key == name) {
          if (auto v = r_.String(value, field)) *target = *v;
          return true;
        }
      }
      for (const auto& [name, target] : bools) {
        if (key == name) {
          if (auto v = r_.Bool(value, field)) *target = *v;
          return true;
        }
      }
      if (key == "weight") {
        if (auto v = r_.Int64(value, field)) e.weight = *v;
      } else if (key == "httpTimeout") {
        if (auto v = r_.String(value, field)) {
          auto d = api::ParseGoDuration(*v);
          if (!d || d->count() < 0) {
            r_.Invalid(field, value, "must be a duration such as \"30s\"");
          } else {
            e.http_timeout = *d;
          }
        }
      } else if (key == "tlsConfig") {
        if (r_.ExpectMap(value, field) && !value.IsNull()) e.tls_config = TlsConfig(value, field);
      } else if (key == "managedResources") {
        ManagedResources(value, field, e.managed_resources);
      } else {
        return false;
      }
      return true;
    });
  }

  ExtenderTlsConfig TlsConfig(const YAML::Node& node, const std::string& path) {
    ExtenderTlsConfig tls;
    const std::pair<std::string_view, std::string*> strings[] = {{"serverName", &tls.server_name},
                                                                 {"certFile", &tls.cert_file},
                                                                 {"keyFile", &tls.key_file},
                                                                 {"caFile", &tls.ca_file}};
    const std::pair<std::string_view, std::string*> bytes[] = {
        {"certData", &tls.cert_data}, {"keyData", &tls.key_data}, {"caData", &tls.ca_data}};
    r_.ForEachField(node, path, [&](const std::string& key, const YAML::Node& value) {
      std::string field = Child(path, key);
      if (key == "insecure") {
        if (auto v = r_.Bool(value, field)) tls.insecure = *v;
        return true;
      }
      for (const auto& [name, target] : strings) {
        if (key == name) {
          if (auto v = r_.String(value, field)) *target = *v;
          return true;
        }
      }
      for (const auto& [name, target] : bytes) {
        if (key == name) {
          if (auto v = r_.String(value, field)) {
            if (auto decoded = DecodeBase64(*v)) {
              *target = std::move(*decoded);
            } else {
              r_.Invalid(field, value, "must be base64-encoded bytes");
            }
          }
          return true;
        }
      }
      return false;
    });
    return tls;
  }

  void ManagedResources(const YAML::Node& list, const std::string& path,
                        std::vector<ExtenderManagedResource>& out) {
    if (!r_.ExpectList(list, path) || list.IsNull()) return;
    for (size_t i = 0; i < list.size(); ++i) {
      std::string here = Index(path, i);
      ExtenderManagedResource resource;
      if (!list[i].IsMap()) {
        r_.Invalid(here, list[i], "must be a map");
      } else {
        r_.ForEachField(list[i], here, [&](const std::string& key, const YAML::Node& value) {
          std::string field = Child(here, key);
          if (key == "name") {
            if (auto v = r_.String(value, field)) resource.name = *v;
          } else if (key == "ignoredByScheduler") {
            if (auto v = r_.Bool(value, field)) resource.ignored_by_scheduler = *v;
          } else {
            return false;
          }
          return true;
        });
      }
      out.push_back(std::move(resource));
    }
  }

  // kube's validateExtenders: a positive weight for a prioritizer, managed
  // resources with valid extended resource names, each managed once (across
  // all extenders), and at most one binder.
  void ValidateExtenders(const std::vector<ExtenderConfig>& extenders) {
    int binders = 0;
    std::set<std::string> managed;
    for (size_t i = 0; i < extenders.size(); ++i) {
      const ExtenderConfig& e = extenders[i];
      std::string path = Index("extenders", i);
      if (!e.prioritize_verb.empty() && e.weight <= 0) {
        r_.Invalid(path + ".weight", e.weight, "must have a positive weight applied to it");
      }
      if (!e.bind_verb.empty()) ++binders;
      for (size_t j = 0; j < e.managed_resources.size(); ++j) {
        const std::string& name = e.managed_resources[j].name;
        std::string field = Index(path + ".managedResources", j) + ".name";
        std::vector<std::string> problems = api::IsQualifiedName(name);
        for (const auto& problem : problems) r_.InvalidString(field, name, problem);
        if (problems.empty() && !api::IsExtendedResourceName(name)) {
          r_.InvalidString(field, name, "is an invalid extended resource name");
        }
        if (!managed.insert(name).second)
          r_.InvalidString(field, name, "duplicate extender managed resource name");
      }
    }
    if (binders > 1) {
      r_.InvalidString("extenders",
                       "found " + std::to_string(binders) + " extenders implementing bind",
                       "only one extender can implement bind");
    }
  }

 private:
  YamlFieldReader& r_;
};

}  // namespace

void ReadExtenders(YamlFieldReader& reader, const YAML::Node& list, const std::string& path,
                   std::vector<ExtenderConfig>& out) {
  ExtenderConfigReader(reader).Extenders(list, path, out);
}

void ValidateExtenders(YamlFieldReader& reader, const std::vector<ExtenderConfig>& extenders) {
  ExtenderConfigReader(reader).ValidateExtenders(extenders);
}

}  // namespace berth::scheduler
