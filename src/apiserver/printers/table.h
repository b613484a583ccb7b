#pragma once
// meta.k8s.io/v1 Tables: what `kubectl get` prints. Built-in kinds get
// kube-apiserver 1.32's columns and cell formats (pkg/printers/internalversion);
// a kind without a printer gets kube's default Name + Created At.
// Row cells always include the wide (priority 1) columns; kubectl hides them
// unless asked for -o wide.

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <chrono>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "api/object.h"

namespace berth::apiserver {

enum class IncludeObject { kNone, kMetadata, kObject };  // ?includeObject=…, default Metadata

// A column of a Table, as written in columnDefinitions.
struct TableColumn {
  std::string name;    // "Name", "Age"; kubectl upper-cases it
  std::string type;    // string, integer, number, boolean, date
  std::string format;  // "name" for the column rows are keyed by, else ""
  std::string description;
  int priority = 0;  // 1: shown only with -o wide
};

// The columns of a kind and how to fill one row of them.
struct TablePrinter {
  std::vector<TableColumn> columns;
  // One cell per column, in column order.
  std::function<boost::json::array(const api::Object& object,
                                   std::chrono::system_clock::time_point now)>
      row;
};

struct TableOptions {
  bool include_column_definitions = true;
  IncludeObject include_object = IncludeObject::kMetadata;
  std::chrono::system_clock::time_point now = std::chrono::system_clock::now();
  // The hook for kinds registered at run time (custom resources, whose
  // Info(kind).builtin is false): when set, their rows are printed with it
  // instead of the default Name + Created At. The API server is to build it
  // from the CustomResourceDefinition's additionalPrinterColumns for the
  // version served. Ignored for built-in kinds. Not owned; must outlive the
  // MakeTable call.
  const TablePrinter* custom_printer = nullptr;
};

boost::json::object MakeTable(api::Kind kind, std::span<const api::ObjectPtr> objects,
                              std::string_view resource_version, std::string_view continue_token,
                              const TableOptions& options);

// True when the Accept header asks for a Table (as=Table;g=meta.k8s.io;v=v1 or v1beta1).
bool WantsTable(std::string_view accept);

// True when every media range of a non-empty Accept header asks for a
// transformed form (as=Table, as=PartialObjectMetadata...): a resource that
// has no such form then has nothing acceptable to answer with, and kube
// answers 406 NotAcceptable.
bool AcceptsOnlyTransformed(std::string_view accept);

}  // namespace berth::apiserver
