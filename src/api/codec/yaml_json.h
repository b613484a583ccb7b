#pragma once
// YAML read as Kubernetes reads it: sigs.k8s.io/yaml decodes with go-yaml v2
// and turns the result into JSON, so a plain scalar resolves by go-yaml v2's
// table (true/yes/on/y and their negatives, integers in base 10, 0x, 0o, 0b
// and a leading 0 for octal, '_' separators, YAML floats, ~/null for null)
// and a quoted, block or !!str scalar stays a string. Every YAML berth reads
// — server-side apply bodies, the scheduler's configuration, scheduler_perf
// workload files — goes through these.

#include <yaml-cpp/yaml.h>

#include <boost/json/value.hpp>

namespace berth::api {

// A scalar node as JSON. An explicit core tag (!!int, !!float, !!bool,
// !!null) resolves as if plain; .inf and .nan, which JSON cannot hold, stay
// strings.
boost::json::value YamlScalarToJson(const YAML::Node& scalar);

// A whole document: maps become objects (keys as written; a key given twice
// keeps its last value), sequences arrays, scalars as above, an empty value
// null. Throws YAML::Exception for a key that is not a scalar.
boost::json::value YamlToJson(const YAML::Node& node);

}  // namespace berth::api
