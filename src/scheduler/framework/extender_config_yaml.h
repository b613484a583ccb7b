#pragma once
// The extenders: list of a KubeSchedulerConfiguration, read and validated as
// kube does (config_yaml.cc calls these with its reader).

#include <string>
#include <vector>

#include "scheduler/framework/config.h"
#include "scheduler/framework/yaml_fields.h"

namespace berth::scheduler {

// extenders: each entry's fields, errors to `reader` under `path`.
void ReadExtenders(YamlFieldReader& reader, const YAML::Node& list, const std::string& path,
                   std::vector<ExtenderConfig>& out);
// kube's validateExtenders: a positive weight for a prioritizer, managed
// resources with valid extended resource names, each managed once (across
// all extenders), and at most one binder.
void ValidateExtenders(YamlFieldReader& reader, const std::vector<ExtenderConfig>& extenders);

}  // namespace berth::scheduler
