#include "api/selector.h"

#include <algorithm>
#include <charconv>

#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/object.h"

namespace berth::api {

namespace json = boost::json;

namespace {

bool IsLabelValueChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
}

// Label values: empty, or up to 63 characters of [A-Za-z0-9_.-] starting and
// ending alphanumeric.
bool ValidLabelValue(std::string_view v) {
  if (v.empty()) return true;
  if (v.size() > 63) return false;
  if (!std::isalnum(static_cast<unsigned char>(v.front())) || !std::isalnum(static_cast<unsigned char>(v.back()))) {
    return false;
  }
  return std::all_of(v.begin(), v.end(), IsLabelValueChar);
}

// Label keys: an optional DNS subdomain prefix and '/', then a name as a value
// but non-empty.
bool ValidLabelKey(std::string_view k) {
  auto slash = k.find('/');
  std::string_view name = slash == std::string_view::npos ? k : k.substr(slash + 1);
  if (slash != std::string_view::npos) {
    std::string_view prefix = k.substr(0, slash);
    if (prefix.empty() || prefix.size() > 253) return false;
    for (char c : prefix) {
      if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '.')) {
        return false;
      }
    }
  }
  return !name.empty() && ValidLabelValue(name);
}

Status InvalidRequirement(std::string_view what) {
  return Status::BadRequest("unable to parse requirement: " + std::string(what));
}

// The lexer of Kubernetes' selector syntax.
struct Token {
  enum Kind { kIdentifier, kComma, kOpen, kClose, kEq, kDoubleEq, kNotEq, kNot, kGt, kLt, kEnd } kind;
  std::string text;
};

std::vector<Token> Lex(std::string_view s) {
  std::vector<Token> tokens;
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == ',') {
      tokens.push_back({Token::kComma, ","}), ++i;
    } else if (c == '(') {
      tokens.push_back({Token::kOpen, "("}), ++i;
    } else if (c == ')') {
      tokens.push_back({Token::kClose, ")"}), ++i;
    } else if (c == '=' && i + 1 < s.size() && s[i + 1] == '=') {
      tokens.push_back({Token::kDoubleEq, "=="}), i += 2;
    } else if (c == '=') {
      tokens.push_back({Token::kEq, "="}), ++i;
    } else if (c == '!' && i + 1 < s.size() && s[i + 1] == '=') {
      tokens.push_back({Token::kNotEq, "!="}), i += 2;
    } else if (c == '!') {
      tokens.push_back({Token::kNot, "!"}), ++i;
    } else if (c == '>') {
      tokens.push_back({Token::kGt, ">"}), ++i;
    } else if (c == '<') {
      tokens.push_back({Token::kLt, "<"}), ++i;
    } else {
      size_t start = i;
      while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i])) &&
             std::string_view(",()=!<>").find(s[i]) == std::string_view::npos) {
        ++i;
      }
      tokens.push_back({Token::kIdentifier, std::string(s.substr(start, i - start))});
    }
  }
  tokens.push_back({Token::kEnd, ""});
  return tokens;
}

std::string_view OpText(LabelRequirement::Op op) {
  switch (op) {
    case LabelRequirement::Op::kEquals: return "=";
    case LabelRequirement::Op::kNotEquals: return "!=";
    case LabelRequirement::Op::kIn: return " in ";
    case LabelRequirement::Op::kNotIn: return " notin ";
    case LabelRequirement::Op::kGt: return ">";
    case LabelRequirement::Op::kLt: return "<";
    default: return "";
  }
}

std::optional<int64_t> ParseInt(std::string_view s) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

Result<LabelRequirement> MakeRequirement(std::string key, LabelRequirement::Op op,
                                         std::vector<std::string> values) {
  if (!ValidLabelKey(key)) {
    return InvalidRequirement("invalid label key \"" + key + "\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character");
  }
  using Op = LabelRequirement::Op;
  if ((op == Op::kIn || op == Op::kNotIn) && values.empty()) {
    return InvalidRequirement("for 'in', 'notin' operators, values set can't be empty");
  }
  if ((op == Op::kEquals || op == Op::kNotEquals) && values.size() != 1) {
    return InvalidRequirement("exact-match compatibility requires one single value");
  }
  if ((op == Op::kExists || op == Op::kDoesNotExist) && !values.empty()) {
    return InvalidRequirement("values set must be empty for exists and does not exist");
  }
  if (op == Op::kGt || op == Op::kLt) {
    if (values.size() != 1 || !ParseInt(values[0])) {
      return InvalidRequirement("for 'Gt', 'Lt' operators, exactly one value is required, and it must be an integer");
    }
  } else {
    for (const auto& v : values) {
      if (!ValidLabelValue(v)) {
        return InvalidRequirement("invalid label value: \"" + v + "\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character");
      }
    }
  }
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return LabelRequirement{std::move(key), op, std::move(values)};
}

}  // namespace

bool LabelRequirement::Matches(const Labels& labels) const {
  auto value = labels.Get(key);
  switch (op) {
    case Op::kEquals:
    case Op::kIn:
      return value && std::binary_search(values.begin(), values.end(), *value);
    case Op::kNotEquals:
    case Op::kNotIn:
      return !value || !std::binary_search(values.begin(), values.end(), *value);
    case Op::kExists:
      return value.has_value();
    case Op::kDoesNotExist:
      return !value.has_value();
    case Op::kGt:
    case Op::kLt: {
      if (!value) return false;
      auto have = ParseInt(*value);
      auto want = ParseInt(values[0]);
      if (!have || !want) return false;
      return op == Op::kGt ? *have > *want : *have < *want;
    }
  }
  return false;
}

LabelSelector LabelSelector::Nothing() {
  LabelSelector s;
  s.nothing_ = true;
  return s;
}

void LabelSelector::Add(LabelRequirement r) {
  auto it = std::upper_bound(requirements_.begin(), requirements_.end(), r.key,
                             [](const std::string& k, const LabelRequirement& x) { return k < x.key; });
  requirements_.insert(it, std::move(r));
}

Result<LabelSelector> LabelSelector::Parse(std::string_view text) {
  LabelSelector selector;
  auto tokens = Lex(text);
  size_t i = 0;
  auto error = [&](std::string_view expected) {
    return Status::BadRequest("unable to parse requirement: found '" + tokens[i].text +
                              "', expected: " + std::string(expected));
  };
  if (tokens[0].kind == Token::kEnd) return selector;
  while (true) {
    using Op = LabelRequirement::Op;
    bool negated = false;
    if (tokens[i].kind == Token::kNot) {
      negated = true;
      ++i;
    }
    if (tokens[i].kind != Token::kIdentifier) return error("identifier");
    std::string key = tokens[i++].text;
    Op op = Op::kExists;
    std::vector<std::string> values;
    if (negated) {
      op = Op::kDoesNotExist;
    } else {
      switch (tokens[i].kind) {
        case Token::kEq:
        case Token::kDoubleEq:
        case Token::kNotEq:
        case Token::kGt:
        case Token::kLt: {
          Token::Kind k = tokens[i++].kind;
          op = k == Token::kNotEq ? Op::kNotEquals : k == Token::kGt ? Op::kGt : k == Token::kLt ? Op::kLt : Op::kEquals;
          if (tokens[i].kind == Token::kIdentifier) {
            values.push_back(tokens[i++].text);
          } else if (tokens[i].kind == Token::kComma || tokens[i].kind == Token::kEnd) {
            values.emplace_back();  // "a=" selects an empty value
          } else {
            return error("identifier");
          }
          break;
        }
        case Token::kIdentifier:
          if (tokens[i].text != "in" && tokens[i].text != "notin") return error("=, !=, ==, in, notin");
          op = tokens[i++].text == "in" ? Op::kIn : Op::kNotIn;
          if (tokens[i].kind != Token::kOpen) return error("'('");
          ++i;
          if (tokens[i].kind == Token::kClose) {  // "in ()": kube reads the set {""}
            values.emplace_back();
            ++i;
            break;
          }
          while (true) {
            if (tokens[i].kind == Token::kIdentifier) {
              values.push_back(tokens[i++].text);
            } else if (tokens[i].kind == Token::kComma || tokens[i].kind == Token::kClose) {
              values.emplace_back();
            } else {
              return error("identifier");
            }
            if (tokens[i].kind == Token::kClose) {
              ++i;
              break;
            }
            if (tokens[i].kind != Token::kComma) return error("',' or ')'");
            ++i;
          }
          break;
        case Token::kComma:
        case Token::kEnd:
          break;
        default:
          return error("=, !=, ==, in, notin");
      }
    }
    auto r = MakeRequirement(std::move(key), op, std::move(values));
    if (!r.ok()) return r.status();
    selector.Add(std::move(r).value());
    if (tokens[i].kind == Token::kEnd) break;
    if (tokens[i].kind != Token::kComma) return error("','");
    ++i;
  }
  return selector;
}

Result<LabelSelector> LabelSelector::FromJson(const json::value& value) {
  if (value.is_null()) return Nothing();
  if (!value.is_object()) return Status::BadRequest("labelSelector: expected an object");
  LabelSelector selector;
  const json::object& o = value.get_object();
  if (auto ml = o.find("matchLabels"); ml != o.end() && !ml->value().is_null()) {
    if (!ml->value().is_object()) return Status::BadRequest("matchLabels: expected an object");
    for (const auto& kv : ml->value().get_object()) {
      if (!kv.value().is_string()) return Status::BadRequest("matchLabels." + std::string(kv.key()) + ": expected a string");
      auto r = MakeRequirement(std::string(kv.key()), LabelRequirement::Op::kEquals, {std::string(kv.value().get_string())});
      if (!r.ok()) return Status::BadRequest("matchLabels: " + r.status().message());
      selector.Add(std::move(r).value());
    }
  }
  if (auto me = o.find("matchExpressions"); me != o.end() && !me->value().is_null()) {
    if (!me->value().is_array()) return Status::BadRequest("matchExpressions: expected a list");
    size_t index = 0;
    for (const auto& e : me->value().get_array()) {
      std::string path = "matchExpressions[" + std::to_string(index++) + "]";
      if (!e.is_object()) return Status::BadRequest(path + ": expected an object");
      const json::object& eo = e.get_object();
      std::string key(StringAt(eo, "key"));
      std::string_view op_text = StringAt(eo, "operator");
      LabelRequirement::Op op;
      if (op_text == "In") op = LabelRequirement::Op::kIn;
      else if (op_text == "NotIn") op = LabelRequirement::Op::kNotIn;
      else if (op_text == "Exists") op = LabelRequirement::Op::kExists;
      else if (op_text == "DoesNotExist") op = LabelRequirement::Op::kDoesNotExist;
      else return Status::BadRequest(path + ".operator: \"" + std::string(op_text) + "\" is not a valid label selector operator");
      std::vector<std::string> values;
      if (auto v = eo.find("values"); v != eo.end() && v->value().is_array()) {
        for (const auto& item : v->value().get_array()) {
          if (!item.is_string()) return Status::BadRequest(path + ".values: expected strings");
          values.emplace_back(item.get_string());
        }
      }
      auto r = MakeRequirement(std::move(key), op, std::move(values));
      if (!r.ok()) return Status::BadRequest(path + ".values: " + r.status().message());
      selector.Add(std::move(r).value());
    }
  }
  return selector;
}

bool LabelSelector::Matches(const Labels& labels) const {
  if (nothing_) return false;
  for (const auto& r : requirements_) {
    if (!r.Matches(labels)) return false;
  }
  return true;
}

std::string LabelSelector::ToString() const {
  std::string out;
  for (const auto& r : requirements_) {
    if (!out.empty()) out += ',';
    using Op = LabelRequirement::Op;
    if (r.op == Op::kDoesNotExist) out += '!';
    out += r.key;
    out += OpText(r.op);
    if (r.op == Op::kIn || r.op == Op::kNotIn) {
      out += '(';
      for (size_t i = 0; i < r.values.size(); ++i) {
        if (i) out += ',';
        out += r.values[i];
      }
      out += ')';
    } else if (!r.values.empty()) {
      out += r.values[0];
    }
  }
  return out;
}

Result<FieldSelector> FieldSelector::Parse(std::string_view text) {
  FieldSelector selector;
  std::string term;
  std::vector<std::string> terms;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      term += text[i];
      term += text[++i];
    } else if (text[i] == ',') {
      terms.push_back(std::move(term));
      term.clear();
    } else {
      term += text[i];
    }
  }
  terms.push_back(std::move(term));
  for (const auto& t : terms) {
    if (t.empty()) continue;
    // The first operator splits field and value, as in kube's splitTerm: a
    // field has no escapes.
    size_t pos = std::string::npos, len = 0;
    bool equals = true;
    for (size_t i = 0; i < t.size(); ++i) {
      if (t.compare(i, 2, "!=") == 0) { pos = i; len = 2; equals = false; break; }
      if (t.compare(i, 2, "==") == 0) { pos = i; len = 2; break; }
      if (t[i] == '=') { pos = i; len = 1; break; }
    }
    if (pos == std::string::npos || pos == 0) {
      return Status::BadRequest("invalid selector: '" + t + "'; can't understand '" + t + "'");
    }
    // The value unescaped as kube's UnescapeValue does: only \\, \, and \=
    // are escapes, and a bare ',' or '=' is refused (ToString escapes them).
    std::string value;
    for (size_t i = pos + len; i < t.size(); ++i) {
      if (t[i] == '\\') {
        if (i + 1 == t.size()) {
          return Status::BadRequest("invalid field selector: invalid escape sequence: \\");
        }
        char next = t[++i];
        if (next != '\\' && next != ',' && next != '=') {
          return Status::BadRequest("invalid field selector: invalid escape sequence: \\" + std::string(1, next));
        }
        value += next;
      } else if (t[i] == ',' || t[i] == '=') {
        return Status::BadRequest("invalid field selector: unescaped character in value: " +
                                  std::to_string(static_cast<int>(t[i])));
      } else {
        value += t[i];
      }
    }
    std::string field = t.substr(0, pos);
    while (!field.empty() && field.back() == ' ') field.pop_back();
    if (field.empty()) {  // " =x": nothing but the spaces berth trims
      return Status::BadRequest("invalid selector: '" + t + "'; can't understand '" + t + "'");
    }
    selector.requirements_.push_back({std::move(field), equals, std::move(value)});
  }
  return selector;
}

Status FieldSelector::CheckSupported(Kind kind) const {
  static const std::vector<std::string_view> kPod = {
      "spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
      "spec.hostNetwork", "status.phase", "status.podIP", "status.podIPs", "status.nominatedNodeName"};
  static const std::vector<std::string_view> kEvent = {
      "involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
      "involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion",
      "involvedObject.fieldPath", "reason", "reportingComponent", "source", "type"};
  for (const auto& r : requirements_) {
    if (r.field == "metadata.name" || r.field == "metadata.namespace") continue;
    bool ok = false;
    switch (kind) {
      case Kind::kPod: ok = std::find(kPod.begin(), kPod.end(), r.field) != kPod.end(); break;
      case Kind::kEvent: ok = std::find(kEvent.begin(), kEvent.end(), r.field) != kEvent.end(); break;
      case Kind::kNode: ok = r.field == "spec.unschedulable"; break;
      case Kind::kNamespace: ok = r.field == "status.phase"; break;
      case Kind::kPersistentVolumeClaim: ok = r.field == "spec.volumeName"; break;
      case Kind::kReplicaSet: ok = r.field == "status.replicas"; break;
      default: break;
    }
    if (!ok) return Status::BadRequest("field label not supported: " + r.field);
  }
  return Status::Ok();
}

bool FieldSelector::Matches(const std::function<std::string(std::string_view)>& field_value) const {
  for (const auto& r : requirements_) {
    if ((field_value(r.field) == r.value) != r.equals) return false;
  }
  return true;
}

bool FieldSelector::Matches(const Object& object) const {
  return Matches([&](std::string_view field) -> std::string {
    if (field == "metadata.name") return object.name();
    if (field == "metadata.namespace") return object.namespace_name();
    std::string v = object.FieldValue(field);
    // Boolean fields select as "true"/"false"; absent means false.
    if (v.empty() && (field == "spec.unschedulable" || field == "spec.hostNetwork")) return "false";
    if (field == "source" && v.empty()) return object.FieldValue("source.component");
    return v;
  });
}

std::string FieldSelector::ToString() const {
  std::string out;
  for (const auto& r : requirements_) {
    if (!out.empty()) out += ',';
    out += r.field;
    out += r.equals ? "=" : "!=";
    for (char c : r.value) {
      if (c == ',' || c == '=' || c == '\\') out += '\\';
      out += c;
    }
  }
  return out;
}

}  // namespace berth::api
