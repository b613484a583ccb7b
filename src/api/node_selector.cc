#include "api/node_selector.h"

#include <algorithm>
#include <charconv>

namespace berth::api {

namespace json = boost::json;

namespace {

std::optional<int64_t> ParseInt(std::string_view text) {
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

bool Contains(const std::vector<std::string>& values, std::string_view v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

std::vector<NodeSelectorRequirement> ReadRequirements(JsonReader& reader, const json::object& parent,
                                                      std::string_view name, const FieldPath& at) {
  std::vector<NodeSelectorRequirement> out;
  const json::array* array = reader.Array(parent, name, at);
  if (!array) return out;
  FieldPath list = at.Field(name);
  for (size_t i = 0; i < array->size(); ++i) {
    FieldPath here = list.Index(static_cast<int>(i));
    const json::object* r = reader.ElementObject((*array)[i], here);
    if (!r) return {};
    NodeSelectorRequirement req;
    req.key = reader.String(*r, "key", here);
    req.operator_text = reader.String(*r, "operator", here);
    req.op = ParseNodeSelectorOp(req.operator_text);
    req.values = reader.StringList(*r, "values", here);
    out.push_back(std::move(req));
  }
  return out;
}

}  // namespace

NodeSelectorRequirement::Op ParseNodeSelectorOp(std::string_view text) {
  using Op = NodeSelectorRequirement::Op;
  if (text == "In") return Op::kIn;
  if (text == "NotIn") return Op::kNotIn;
  if (text == "Exists") return Op::kExists;
  if (text == "DoesNotExist") return Op::kDoesNotExist;
  if (text == "Gt") return Op::kGt;
  if (text == "Lt") return Op::kLt;
  return Op::kUnknown;
}

bool NodeSelectorRequirement::Matches(const Labels& labels) const {
  auto value = labels.Get(key);
  switch (op) {
    case Op::kIn:
      return value && Contains(values, *value);
    case Op::kNotIn:
      return !value || !Contains(values, *value);
    case Op::kExists:
      return value.has_value();
    case Op::kDoesNotExist:
      return !value.has_value();
    case Op::kGt:
    case Op::kLt: {
      if (!value || values.size() != 1) return false;
      auto have = ParseInt(*value);
      auto want = ParseInt(values[0]);
      if (!have || !want) return false;
      return op == Op::kGt ? *have > *want : *have < *want;
    }
    case Op::kUnknown:
      return false;
  }
  return false;
}

bool NodeSelectorRequirement::MatchesField(std::string_view node_name) const {
  if (key != "metadata.name") return false;
  if (op == Op::kIn) return values.size() == 1 && values[0] == node_name;
  if (op == Op::kNotIn) return values.size() == 1 && values[0] != node_name;
  return false;
}

bool NodeSelectorTerm::Matches(const Labels& node_labels, std::string_view node_name) const {
  if (match_expressions.empty() && match_fields.empty()) return false;
  for (const auto& r : match_expressions) {
    if (!r.Matches(node_labels)) return false;
  }
  for (const auto& r : match_fields) {
    if (!r.MatchesField(node_name)) return false;
  }
  return true;
}

bool NodeSelector::Matches(const Labels& node_labels, std::string_view node_name) const {
  for (const auto& term : terms) {
    if (term.Matches(node_labels, node_name)) return true;
  }
  return false;
}

NodeSelectorTerm ReadNodeSelectorTerm(JsonReader& reader, const json::object& object, const FieldPath& at) {
  NodeSelectorTerm term;
  term.match_expressions = ReadRequirements(reader, object, "matchExpressions", at);
  term.match_fields = ReadRequirements(reader, object, "matchFields", at);
  return term;
}

NodeSelector ReadNodeSelector(JsonReader& reader, const json::object& object, const FieldPath& at) {
  NodeSelector selector;
  const json::array* terms = reader.Array(object, "nodeSelectorTerms", at);
  if (!terms) return selector;
  FieldPath list = at.Field("nodeSelectorTerms");
  for (size_t i = 0; i < terms->size(); ++i) {
    FieldPath here = list.Index(static_cast<int>(i));
    const json::object* t = reader.ElementObject((*terms)[i], here);
    if (!t) return {};
    selector.terms.push_back(ReadNodeSelectorTerm(reader, *t, here));
  }
  return selector;
}

}  // namespace berth::api
