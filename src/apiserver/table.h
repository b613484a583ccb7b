#pragma once
// meta.k8s.io/v1 Tables: what `kubectl get` prints, with kube's columns and
// cell formatting for the kinds berth serves (Name + Created At for the rest).

#include <chrono>
#include <span>
#include <string>
#include <string_view>

#include <boost/json/object.hpp>

#include "api/object.h"

namespace berth::apiserver {

enum class IncludeObject { kNone, kMetadata, kObject };  // ?includeObject=…, default Metadata

struct TableOptions {
  bool include_column_definitions = true;
  IncludeObject include_object = IncludeObject::kMetadata;
  std::chrono::system_clock::time_point now = std::chrono::system_clock::now();
};

boost::json::object MakeTable(api::Kind kind, std::span<const api::ObjectPtr> objects,
                              std::string_view resource_version, std::string_view continue_token,
                              const TableOptions& options);

// True when the Accept header asks for a Table (as=Table;g=meta.k8s.io;v=v1 or v1beta1).
bool WantsTable(std::string_view accept);

}  // namespace berth::apiserver
