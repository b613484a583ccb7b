#include "apiserver/printers/table.h"

#include <algorithm>
#include <array>
#include <boost/json.hpp>

#include "api/codec/json_parse.h"
#include "api/json_fields.h"
#include "api/quantity.h"
#include "api/selector.h"
#include "api/time/duration.h"
#include "api/time/rfc3339.h"
#include "apiserver/printers/table_printers.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace table {

std::string Text(const json::object* o, std::string_view key, std::string_view fallback) {
  const json::value* v = o ? o->if_contains(key) : nullptr;
  if (!v || v->is_null()) return std::string(fallback);
  if (v->is_string())
    return v->get_string().empty() ? std::string(fallback) : std::string(v->get_string());
  return json::serialize(*v);
}

std::string Since(std::string_view rfc3339, std::chrono::system_clock::time_point now) {
  auto t = rfc3339.empty() ? std::nullopt : api::ParseRfc3339(rfc3339);
  if (!t) return "<unknown>";
  return api::HumanDuration(std::chrono::duration_cast<std::chrono::seconds>(now - *t));
}

std::string Age(const api::Object& object, std::chrono::system_clock::time_point now) {
  return Since(api::StringAt(api::Metadata(object), "creationTimestamp"), now);
}

std::string Join(const std::vector<std::string>& parts, std::string_view separator,
                 std::string_view empty) {
  if (parts.empty()) return std::string(empty);
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += separator;
    out += parts[i];
  }
  return out;
}

std::string FormatLabels(const json::object* labels) {
  std::vector<std::string> pairs;
  if (labels) {
    for (const auto& kv : *labels) {
      pairs.push_back(std::string(kv.key()) + "=" +
                      (kv.value().is_string() ? std::string(kv.value().get_string()) : ""));
    }
  }
  std::sort(pairs.begin(), pairs.end());
  return Join(pairs, ",", "<none>");
}

std::string FormatLabelSelector(const json::value* selector) {
  if (!selector || selector->is_null()) return "<none>";
  auto parsed = api::LabelSelector::FromJson(*selector);
  if (!parsed.ok()) return "<error>";
  std::string text = parsed->ToString();
  return text.empty() ? "<none>" : text;
}

std::string QuantityText(const json::value* quantity) {
  if (!quantity || quantity->is_null()) return "0";
  std::string text =
      quantity->is_string() ? std::string(quantity->get_string()) : json::serialize(*quantity);
  auto parsed = api::Quantity::Parse(text);
  return parsed.ok() ? parsed->ToString() : text;
}

void ContainerCells(const json::object* pod_spec, json::array& cells) {
  std::vector<std::string> names, images;
  if (const json::array* containers = api::ArrayAt(pod_spec, "containers")) {
    for (const auto& c : *containers) {
      const json::object* container = c.if_object();
      names.emplace_back(api::StringAt(container, "name"));
      images.emplace_back(api::StringAt(container, "image"));
    }
  }
  cells.emplace_back(Join(names, ","));
  cells.emplace_back(Join(images, ","));
}

const json::object* TemplatePodSpec(const json::object* spec) {
  return api::ObjectAt(api::ObjectAt(spec, "template"), "spec");
}

std::string_view BoolText(bool value) { return value ? "True" : "False"; }

bool Has(const json::object* o, std::string_view key) {
  const json::value* v = o ? o->if_contains(key) : nullptr;
  return v && !v->is_null();
}

namespace {

// kube's default table (rest.NewDefaultTableConvertor), for kinds without a printer.
constexpr Column kDefaultColumns[] = {{"Name", "string", 0, "name"}, {"Created At", "date"}};

void DefaultRow(const api::Object& object, std::chrono::system_clock::time_point,
                json::array& cells) {
  cells.emplace_back(object.name());
  cells.emplace_back(api::StringAt(api::Metadata(object), "creationTimestamp"));
}

constexpr KindPrinter kDefaultPrinter{api::Kind::kNamespace, kDefaultColumns, DefaultRow};

// The printer of a built-in kind; the default one for kinds no file prints.
const KindPrinter& PrinterFor(api::Kind kind) {
  static const auto by_kind = [] {
    std::array<const KindPrinter*, api::kBuiltinKindCount> out{};
    for (auto printers : {CorePrinters(), WorkloadPrinters(), ClusterPrinters()}) {
      for (const KindPrinter& p : printers) out[static_cast<size_t>(p.kind)] = &p;
    }
    return out;
  }();
  const KindPrinter* p = api::IsBuiltin(kind) ? by_kind[static_cast<size_t>(kind)] : nullptr;
  return p ? *p : kDefaultPrinter;
}

}  // namespace
}  // namespace table

bool WantsTable(std::string_view accept) {
  return accept.find("as=Table") != std::string_view::npos &&
         accept.find("g=meta.k8s.io") != std::string_view::npos;
}

bool AcceptsOnlyTransformed(std::string_view accept) {
  bool any = false;
  while (!accept.empty()) {
    size_t comma = accept.find(',');
    std::string_view range = accept.substr(0, comma);
    accept = comma == std::string_view::npos ? std::string_view() : accept.substr(comma + 1);
    if (range.find_first_not_of(" \t") == std::string_view::npos) continue;
    any = true;
    if (range.find("as=") == std::string_view::npos) return false;
  }
  return any;
}

json::object MakeTable(api::Kind kind, std::span<const api::ObjectPtr> objects,
                       std::string_view resource_version, std::string_view continue_token,
                       const TableOptions& options) {
  const TablePrinter* custom = api::IsBuiltin(kind) ? nullptr : options.custom_printer;
  // A kind stored as another prints as that one (kube's printers are per internal type).
  const table::KindPrinter& builtin = table::PrinterFor(api::StorageKindOf(kind));

  json::object table;
  table["kind"] = "Table";
  table["apiVersion"] = "meta.k8s.io/v1";
  json::object meta{{"resourceVersion", resource_version}};
  if (!continue_token.empty()) meta["continue"] = continue_token;
  table["metadata"] = std::move(meta);
  if (options.include_column_definitions) {
    json::array columns;
    auto add = [&](std::string_view name, std::string_view type, std::string_view format,
                   std::string_view description, int priority) {
      columns.push_back(json::object{{"name", name},
                                     {"type", type},
                                     {"format", format},
                                     {"description", description},
                                     {"priority", priority}});
    };
    if (custom) {
      for (const TableColumn& c : custom->columns)
        add(c.name, c.type, c.format, c.description, c.priority);
    } else {
      for (const table::Column& c : builtin.columns) add(c.name, c.type, c.format, "", c.priority);
    }
    table["columnDefinitions"] = std::move(columns);
  } else {
    table["columnDefinitions"] = nullptr;
  }
  json::array rows;
  for (const auto& object : objects) {
    json::object row;
    if (custom) {
      row["cells"] = custom->row(*object, options.now);
    } else {
      json::array cells;
      builtin.row(*object, options.now, cells);
      row["cells"] = std::move(cells);
    }
    if (options.include_object == IncludeObject::kObject) {
      row["object"] = api::ParseJson(api::EncodedAs(*object, kind));
    } else if (options.include_object == IncludeObject::kMetadata) {
      json::object partial;
      partial["kind"] = "PartialObjectMetadata";
      partial["apiVersion"] = "meta.k8s.io/v1";
      json::value full = api::ParseJson(object->Encoded());
      partial["metadata"] = full.as_object()["metadata"];
      row["object"] = std::move(partial);
    }
    rows.push_back(std::move(row));
  }
  table["rows"] = std::move(rows);
  return table;
}

}  // namespace berth::apiserver
