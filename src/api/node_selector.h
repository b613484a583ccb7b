#pragma once
// Node selectors as pods (spec.affinity.nodeAffinity) and persistent volumes
// (spec.nodeAffinity) write them, with Kubernetes' matching rules: terms are
// ORed, the requirements of one term ANDed; a term with no requirements
// matches nothing; an unknown operator or a malformed Gt/Lt value makes its
// term match nothing (validation rejects such objects on create).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "api/codec/json_reader.h"
#include "api/labels.h"

namespace berth::api {

struct NodeSelectorRequirement {
  enum class Op : unsigned char { kIn, kNotIn, kExists, kDoesNotExist, kGt, kLt, kUnknown };
  std::string key;
  Op op = Op::kUnknown;
  std::string operator_text;  // as written, for messages
  std::vector<std::string> values;

  // For matchExpressions: `labels` are the node's labels.
  bool Matches(const Labels& labels) const;
  // For matchFields: only metadata.name with In/NotIn is supported, as in kube.
  bool MatchesField(std::string_view node_name) const;
};

struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> match_expressions;
  std::vector<NodeSelectorRequirement> match_fields;
  bool Matches(const Labels& node_labels, std::string_view node_name) const;
};

struct NodeSelector {
  std::vector<NodeSelectorTerm> terms;
  bool Matches(const Labels& node_labels, std::string_view node_name) const;
};

struct PreferredSchedulingTerm {
  int32_t weight = 0;
  NodeSelectorTerm preference;
};

NodeSelectorRequirement::Op ParseNodeSelectorOp(std::string_view text);

// Readers for the JSON forms; `at` is the path of `object`.
NodeSelectorTerm ReadNodeSelectorTerm(JsonReader& reader, const boost::json::object& object,
                                      const FieldPath& at);
NodeSelector ReadNodeSelector(JsonReader& reader, const boost::json::object& object, const FieldPath& at);

}  // namespace berth::api
