#pragma once
// Label selectors (the string syntax "app=web,tier in (a,b),!canary" and the
// structured matchLabels/matchExpressions form) and field selectors
// ("spec.nodeName=n1,status.phase!=Failed"), with Kubernetes' semantics.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/fwd.hpp>

#include "api/kinds.h"
#include "api/labels.h"
#include "api/status.h"

namespace berth::api {

class Object;

struct LabelRequirement {
  enum class Op : unsigned char { kEquals, kNotEquals, kIn, kNotIn, kExists, kDoesNotExist, kGt, kLt };
  std::string key;
  Op op;
  std::vector<std::string> values;  // sorted, unique
  bool Matches(const Labels& labels) const;
};

class LabelSelector {
 public:
  // Selects everything (an empty selector).
  LabelSelector() = default;
  static LabelSelector Everything() { return {}; }
  // Selects nothing: what a nil structured selector means in Kubernetes.
  static LabelSelector Nothing();

  // The string syntax. BadRequest with the offending text on a syntax error
  // or an invalid key/value.
  static Result<LabelSelector> Parse(std::string_view text);
  // The structured form {matchLabels, matchExpressions}. JSON null is
  // Nothing(); {} is Everything(). Errors name the field path.
  static Result<LabelSelector> FromJson(const boost::json::value& value);

  bool Matches(const Labels& labels) const;
  bool Empty() const { return !nothing_ && requirements_.empty(); }
  bool SelectsNothing() const { return nothing_; }
  const std::vector<LabelRequirement>& requirements() const { return requirements_; }
  // Canonical string form, requirements sorted by key.
  std::string ToString() const;

 private:
  void Add(LabelRequirement r);
  std::vector<LabelRequirement> requirements_;  // sorted by key
  bool nothing_ = false;
};

struct FieldRequirement {
  std::string field;
  bool equals;  // false: !=
  std::string value;
};

class FieldSelector {
 public:
  FieldSelector() = default;
  // "a=b", "a==b", "a!=b" joined by commas; values may escape ',', '=' and '\'.
  static Result<FieldSelector> Parse(std::string_view text);

  // BadRequest "field label not supported: <field>" unless every field is one
  // Kubernetes supports for `kind`.
  Status CheckSupported(Kind kind) const;

  bool Matches(const std::function<std::string(std::string_view field)>& field_value) const;
  bool Matches(const Object& object) const;
  bool Empty() const { return requirements_.empty(); }
  const std::vector<FieldRequirement>& requirements() const { return requirements_; }
  std::string ToString() const;

 private:
  std::vector<FieldRequirement> requirements_;
};

}  // namespace berth::api
