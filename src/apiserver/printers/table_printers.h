#pragma once
// Inside the Table code (table.cc and table_<group>.cc): the built-in kinds'
// printers — kube-apiserver 1.32's column sets (pkg/printers/internalversion)
// and row functions — and the cell formats they share. Not for use outside
// src/apiserver/table*.cc; the public interface is table.h.
//
// Row functions print every column, wide ones included, as kube-apiserver does
// (it always renders with Wide: true and leaves hiding to kubectl). Fields kube
// defaults on write are read with that default when absent, so an object
// written before berth defaulted it prints as kube would print it.

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <chrono>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "api/kinds.h"
#include "api/object.h"

namespace berth::apiserver::table {

struct Column {
  std::string_view name;
  std::string_view type;         // string, integer, boolean, date
  int priority = 0;              // 1: shown only with -o wide
  std::string_view format = {};  // "name" for the column kubectl keys rows by
};

// Appends one row's cells, one per column, in column order.
using RowFunction = void (*)(const api::Object& object, std::chrono::system_clock::time_point now,
                             boost::json::array& cells);

struct KindPrinter {
  api::Kind kind;
  std::span<const Column> columns;
  RowFunction row;
};

// The printers of each file, one entry per kind.
std::span<const KindPrinter> CorePrinters();  // table_core.cc: core/v1
std::span<const KindPrinter>
WorkloadPrinters();  // table_workloads.cc: apps, batch, autoscaling, policy
std::span<const KindPrinter> ClusterPrinters();  // table_cluster.cc: networking, discovery, rbac,
                                                 // storage, scheduling, coordination, node

// ---- Cell formats shared by the printers ----

// The member `key` as text: a string as is, a number or bool as JSON;
// `fallback` when absent, null or "".
std::string Text(const boost::json::object* o, std::string_view key,
                 std::string_view fallback = "");
// kube's translateTimestampSince: HumanDuration(now - t), "<unknown>" when
// `rfc3339` is empty or unparsable.
std::string Since(std::string_view rfc3339, std::chrono::system_clock::time_point now);
// Since() of metadata.creationTimestamp: the Age column.
std::string Age(const api::Object& object, std::chrono::system_clock::time_point now);
// `parts` joined by `separator`; `empty` when there are none.
std::string Join(const std::vector<std::string>& parts, std::string_view separator,
                 std::string_view empty = "");
// kube's labels.FormatLabels: "k=v" sorted by key, joined by ","; "<none>"
// for an absent or empty map.
std::string FormatLabels(const boost::json::object* labels);
// kube's metav1.FormatLabelSelector: the canonical selector string, "<none>"
// when it selects everything or is absent, "<error>" when invalid.
std::string FormatLabelSelector(const boost::json::value* selector);
// kube's Quantity.String(): the canonical form of a quantity string ("1.5Gi"
// -> "1536Mi"); the text as written when it does not parse, "0" when absent.
std::string QuantityText(const boost::json::value* quantity);
// The container names and images of a pod spec, each joined by ",".
void ContainerCells(const boost::json::object* pod_spec, boost::json::array& cells);
// spec.template.spec of a workload.
const boost::json::object* TemplatePodSpec(const boost::json::object* spec);
// "True"/"False", as kube's printBool.
std::string_view BoolText(bool value);
// Whether the member `key` is present and not null.
bool Has(const boost::json::object* o, std::string_view key);

}  // namespace berth::apiserver::table
