#pragma once
// kube's warnings about objects that are valid but probably not what their
// author meant (pkg/api/pod/warnings.go, the strategies' WarningsOnCreate
// and WarningsOnUpdate): deprecated node labels, annotations and volume
// types; duplicates a later `kubectl apply` would lose; fractional byte
// quantities; selectors that match nothing. They reach the client as Warning
// headers; the write goes ahead.

#include <string>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>

#include "api/object.h"

namespace berth::api {

// The warnings about a pod's `spec` and `meta`, their field paths under
// `prefix` ("" for a pod, "spec.template." for a workload's template).
std::vector<std::string> PodSpecWarnings(const boost::json::object* meta, const boost::json::object* spec,
                                         std::string_view prefix);

namespace validation {

// KindRules::warnings of the kinds that carry pods. `current`: the stored
// object on update, nullptr on create. Workloads warn about their template
// when their generation changes (a spec change), as kube's strategies do.
std::vector<std::string> PodWarnings(const Object& next, const Object* current);
std::vector<std::string> WorkloadTemplateWarnings(const Object& next, const Object* current);
std::vector<std::string> CronJobTemplateWarnings(const Object& next, const Object* current);
std::vector<std::string> PodTemplateWarnings(const Object& next, const Object* current);

}  // namespace validation
}  // namespace berth::api
