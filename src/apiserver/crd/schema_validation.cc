// Value validation of custom objects, as kube-openapi's SchemaValidator does
// it for apiextensions-apiserver (kube-openapi pkg/validation/validate at
// d427ff9, the version kube v1.35 uses), and the list-type checks of
// apiextensions-apiserver pkg/apiserver/schema/listtype.

#include <algorithm>
#include <boost/json.hpp>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <regex>
#include <string>

#include "apiserver/crd/schema_node.h"

namespace berth::apiserver::crd {

namespace json = boost::json;
using Node = Schema::Node;

namespace {

// The JSON type kube-openapi infers from a decoded value.
std::string_view JsonType(const json::value& v) {
  switch (v.kind()) {
    case json::kind::null:
      return "null";
    case json::kind::bool_:
      return "boolean";
    case json::kind::int64:
    case json::kind::uint64:
      return "integer";
    case json::kind::double_:
      return "number";
    case json::kind::string:
      return "string";
    case json::kind::array:
      return "array";
    case json::kind::object:
      return "object";
  }
  return "";
}

// A float64 as Go's %v prints it: shortest digits, exponent form when the
// decimal exponent is below -4 or at least 21 ("1e+21", "1.5", "0.0001").
std::string GoFloat(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "+Inf" : "-Inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::scientific);
  std::string sci(buf, end);  // "-1.5e+21"
  const size_t e = sci.find('e');
  const int exponent = std::stoi(sci.substr(e + 1));
  std::string mantissa = sci.substr(0, e);
  const bool negative = mantissa[0] == '-';
  if (negative) mantissa.erase(0, 1);
  std::string digits;
  for (char c : mantissa) {
    if (c != '.') digits += c;
  }
  std::string out;
  if (exponent < -4 || exponent >= 21) {
    out = digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    const int magnitude = std::abs(exponent);
    out += exponent < 0 ? "e-" : "e+";
    if (magnitude < 10) out += '0';
    out += std::to_string(magnitude);
  } else if (exponent < 0) {
    out = "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
  } else {
    const size_t integer_digits = static_cast<size_t>(exponent) + 1;
    if (digits.size() <= integer_digits) {
      out = digits + std::string(integer_digits - digits.size(), '0');
    } else {
      out = digits.substr(0, integer_digits) + "." + digits.substr(integer_digits);
    }
  }
  return negative ? "-" + out : out;
}

// A decoded number as the value of a field error: an integer stays one.
json::value NumberValue(const json::value& v) {
  if (v.is_double() && std::trunc(v.get_double()) == v.get_double() &&
      std::abs(v.get_double()) < 9.0e15) {
    return static_cast<int64_t>(v.get_double());
  }
  return v;
}

// JSON equality where 1 and 1.0 are the same number.
bool JsonEqual(const json::value& a, const json::value& b) {
  if (a.is_number() && b.is_number()) {
    if (a.is_double() || b.is_double()) return a.to_number<double>() == b.to_number<double>();
    if (a.is_int64() && b.is_int64()) return a.get_int64() == b.get_int64();
    if (a.is_uint64() && b.is_uint64()) return a.get_uint64() == b.get_uint64();
    const json::value& signed_one = a.is_int64() ? a : b;
    const json::value& unsigned_one = a.is_int64() ? b : a;
    return signed_one.get_int64() >= 0 &&
           static_cast<uint64_t>(signed_one.get_int64()) == unsigned_one.get_uint64();
  }
  if (a.kind() != b.kind()) return false;
  if (a.is_array()) {
    const json::array &x = a.get_array(), &y = b.get_array();
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
      if (!JsonEqual(x[i], y[i])) return false;
    }
    return true;
  }
  if (a.is_object()) {
    const json::object &x = a.get_object(), &y = b.get_object();
    if (x.size() != y.size()) return false;
    for (const auto& kv : x) {
      const json::value* other = y.if_contains(kv.key());
      if (other == nullptr || !JsonEqual(kv.value(), *other)) return false;
    }
    return true;
  }
  return a == b;
}

// A value as a field error's bad value text: strings as they are, the rest as JSON.
std::string ValueText(const json::value& v) {
  if (v.is_string()) return std::string(v.get_string());
  return json::serialize(NumberValue(v));
}

size_t CodePoints(std::string_view s) {
  return static_cast<size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// Go's time.Parse("2006-01-02", s).
bool IsDate(std::string_view s) {
  static const std::regex kDate("^([0-9]{4})-([0-9]{2})-([0-9]{2})$");
  std::match_results<std::string_view::const_iterator> m;
  if (!std::regex_match(s.begin(), s.end(), m, kDate)) return false;
  const int year = std::stoi(m[1].str()), month = std::stoi(m[2].str()),
            day = std::stoi(m[3].str());
  if (month < 1 || month > 12 || day < 1) return false;
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return day <= kDays[month - 1] + (month == 2 && leap ? 1 : 0);
}

// kube-openapi's strfmt IsDateTime: RFC 3339, any case, fraction optional.
bool IsDateTime(std::string_view s) {
  if (s.size() < 4) return false;
  std::string lower(s);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  const size_t t = lower.find('t');
  if (t == std::string::npos || !IsDate(std::string_view(lower).substr(0, t))) return false;
  const size_t next = lower.find('t', t + 1);
  const std::string time =
      lower.substr(t + 1, next == std::string::npos ? std::string::npos : next - t - 1);
  static const std::regex kTime(
      "^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$");
  std::smatch m;
  if (!std::regex_match(time, m, kTime)) return false;
  return m[1].str() <= "23" && m[2].str() <= "59" && m[3].str() <= "59";
}

// Formats berth checks; kube accepts the others listed in its supportedFormats
// and berth passes them unchecked.
std::optional<bool> FormatValid(std::string_view format, std::string_view s) {
  if (format == "date-time" || format == "datetime") return IsDateTime(s);
  if (format == "date") return IsDate(s);
  return std::nullopt;
}

class Validator {
 public:
  Validator(std::string_view prefix, api::FieldErrors& errors) : prefix_(prefix), errors_(errors) {}

  void Validate(const Node& s, const json::value& data, const std::string& name) {
    if (data.is_null()) {
      CheckType(s, data, name);
      CheckEnum(s, data, name);
      return;
    }
    CheckType(s, data, name);
    CheckCombinators(s, data, name);
    if (data.is_string()) CheckString(s, data.get_string(), name);
    if (data.is_number()) CheckNumber(s, data, name);
    if (data.is_array()) CheckArray(s, data.get_array(), name);
    CheckEnum(s, data, name);
    if (data.is_object()) CheckObject(s, data.get_object(), name);
  }

 private:
  // kube: errPath = fldPath.Child(strings.TrimPrefix(name, ".")), the whole
  // name one child; a nil fldPath prints as "<nil>".
  std::string Field(std::string_view name) const {
    if (!name.empty() && name.front() == '.') name.remove_prefix(1);
    if (name.empty()) return Root();
    return prefix_.empty() ? std::string(name) : prefix_ + "." + std::string(name);
  }
  std::string Root() const { return prefix_.empty() ? "<nil>" : prefix_; }

  static std::vector<std::string> Types(const Node& s) {
    if (s.int_or_string) return {"integer", "string"};
    if (s.type.empty()) return {};
    return {s.type};
  }

  void CheckType(const Node& s, const json::value& data, const std::string& name) {
    const std::vector<std::string> types = Types(s);
    if (types.empty() && s.format.empty()) return;
    auto has = [&](std::string_view t) {
      return std::find(types.begin(), types.end(), t) != types.end();
    };
    std::string joined;
    for (const std::string& t : types) joined += (joined.empty() ? "" : ",") + t;
    if (data.is_null()) {
      if (!types.empty() && !s.nullable) TypeError(name, joined, "null");
      return;
    }
    const std::string_view sch_type = JsonType(data);
    const std::string_view sch_format = data.is_int64() || data.is_uint64() ? "int64"
                                        : data.is_double()                  ? "float64"
                                                                            : "";
    const bool float_int =
        data.is_double() && std::trunc(data.get_double()) == data.get_double() && has("integer");
    const bool int_float = sch_type == "integer" && has("number");
    if (!data.is_string() && !data.is_array() && !s.format.empty() &&
        !(has(sch_type) || sch_format == s.format || float_int || int_float)) {
      TypeError(name, s.format, sch_format);
      return;
    }
    if (!(has("number") || has("integer")) && !s.format.empty() &&
        (data.is_string() || data.is_array()))
      return;
    if (!(has(sch_type) || float_int || int_float)) TypeError(name, joined, sch_type);
  }

  void TypeError(const std::string& name, std::string_view type, std::string_view actual) {
    errors_.Invalid(Field(name), actual,
                    name + " in body must be of type " + std::string(type) + ": \"" +
                        std::string(actual) + "\"");
  }

  // anyOf, oneOf, allOf and not. Of failing alternatives kube reports the one
  // with the highest match count, the first on a tie (see Score).
  void CheckCombinators(const Node& s, const json::value& data, const std::string& name) {
    if (!s.any_of.empty()) {
      const Node* best = nullptr;
      size_t best_score = 0;
      bool passed = false;
      for (const auto& alternative : s.any_of) {
        if (CountErrors(*alternative, data, name) == 0) {
          passed = true;
          break;
        }
        const size_t score = Score(*alternative, data);
        if (best == nullptr || score > best_score) best = alternative.get(), best_score = score;
      }
      if (!passed) {
        errors_.Invalid(Root(), "", Quoted(name) + " must validate at least one schema (anyOf)");
        Validate(*best, data, name);
      }
    }
    if (!s.one_of.empty()) {
      const Node* best = nullptr;
      size_t best_score = 0;
      int valid = 0;
      for (const auto& alternative : s.one_of) {
        if (CountErrors(*alternative, data, name) == 0) {
          ++valid;
        } else if (valid == 0 && (best == nullptr || Score(*alternative, data) > best_score)) {
          best = alternative.get(), best_score = Score(*alternative, data);
        }
      }
      if (valid != 1) {
        const std::string found = valid == 0
                                      ? "Found none valid"
                                      : "Found " + std::to_string(valid) + " valid alternatives";
        errors_.Invalid(Root(), "",
                        Quoted(name) + " must validate one and only one schema (oneOf). " + found);
        if (valid == 0 && best != nullptr) Validate(*best, data, name);
      }
    }
    if (!s.all_of.empty()) {
      size_t valid = 0;
      for (const auto& part : s.all_of) {
        const size_t before = errors_.causes().size();
        Validate(*part, data, name);
        if (errors_.causes().size() == before) ++valid;
      }
      if (valid != s.all_of.size()) {
        errors_.Invalid(Root(), "",
                        Quoted(name) + " must validate all the schemas (allOf)" +
                            (valid == 0 ? ". None validated" : ""));
      }
    }
    if (s.not_schema && CountErrors(*s.not_schema, data, name) == 0) {
      errors_.Invalid(Root(), "", Quoted(name) + " must not validate the schema (not)");
    }
  }

  // kube-openapi's match count, to its first order: how many of its
  // validators (type, combinators, string, format, number, array, enum,
  // object) apply to `data` under `s`.
  static size_t Score(const Node& s, const json::value& data) {
    size_t score = 2;  // combinators and enum apply to everything
    if (!Types(s).empty() || !s.format.empty()) ++score;
    if (data.is_string()) score += FormatValid(s.format, "").has_value() ? 2 : 1;
    if (data.is_number() || data.is_array() || data.is_object()) ++score;
    return score;
  }

  // How many errors `s` finds in `data`, reported nowhere.
  size_t CountErrors(const Node& s, const json::value& data, const std::string& name) const {
    api::FieldErrors found;
    Validator(prefix_, found).Validate(s, data, name);
    return found.causes().size();
  }

  // Go's %q of a path, as kube's composite messages print it.
  static std::string Quoted(const std::string& s) { return "\"" + s + "\""; }

  // kube-openapi's string validator stops at the first failure.
  void CheckString(const Node& s, std::string_view data, const std::string& name) {
    const size_t length = CodePoints(data);
    if (s.max_length && static_cast<int64_t>(length) > *s.max_length) {
      errors_.Invalid(
          Field(name), data,
          name + " in body should be at most " + std::to_string(*s.max_length) + " chars long");
    } else if (s.min_length && static_cast<int64_t>(length) < *s.min_length) {
      errors_.Invalid(
          Field(name), data,
          name + " in body should be at least " + std::to_string(*s.min_length) + " chars long");
    } else if (s.pattern_regex && !s.pattern_regex->Search(data)) {
      errors_.Invalid(Field(name), data, name + " in body should match '" + s.pattern + "'");
    }
    if (!s.format.empty()) {
      const std::optional<bool> valid = FormatValid(s.format, data);
      if (valid.has_value() && !*valid) {
        errors_.Invalid(
            Field(name), data,
            name + " in body must be of type " + s.format + ": \"" + std::string(data) + "\"");
      }
    }
  }

  // Whether `v` fits the declared integer format, as kube-openapi's
  // IsValueValidAgainstRange decides.
  static bool FitsIntegerFormat(double v, bool is_int, int64_t i, const json::value& raw,
                                std::string_view format) {
    if (raw.is_uint64())
      return format != "int32" && raw.get_uint64() <= static_cast<uint64_t>(INT64_MAX);
    if (!is_int && std::trunc(v) != v) return false;
    const double as_int = is_int ? static_cast<double>(i) : v;
    if (format == "int32") return as_int >= INT32_MIN && as_int <= INT32_MAX;
    return as_int >= -9.223372036854775808e18 && as_int < 9.223372036854775808e18;
  }

  void CheckNumber(const Node& s, const json::value& data, const std::string& name) {
    // kube-openapi checks ranges only for a single declared type, and only
    // the formats that belong to it.
    const std::string type =
        !s.int_or_string && (s.type == "integer" || s.type == "number") ? s.type : "";
    const std::string format =
        type == "integer" && (s.format == "int32" || s.format == "int64") ? s.format : "";
    const bool is_int = data.is_int64();
    const int64_t i = is_int ? data.get_int64() : 0;
    const double d = data.to_number<double>();
    if (type == "integer" && !FitsIntegerFormat(d, is_int, i, data, format)) {
      const std::string how = format.empty() ? "(default format)" : "with format " + format;
      errors_.Invalid(Root(), "", "Checked value must be of type integer " + how + " in " + name);
    }
    // kube compares an integer natively, against the bound truncated to an
    // integer, whenever the bound is valid for the declared type (so a number
    // field's integer 3 exceeds maximum 2.5 as "less than or equal to 2").
    auto native = [&](double bound) {
      return is_int && (type != "integer" || std::trunc(bound) == bound);
    };
    auto show = [&](double bound) {
      return native(bound) ? std::to_string(static_cast<int64_t>(bound)) : GoFloat(bound);
    };
    if (s.multiple_of) {
      const double f = *s.multiple_of;
      if (f <= 0) {
        errors_.InvalidValue(
            Field(name), f,
            "factor MultipleOf declared for " + name + " must be positive: " + show(f));
      } else if (native(f) ? i % static_cast<int64_t>(f) != 0
                           : !IsJsonInteger(f < 1 ? 1 / f * d : d / f)) {
        errors_.InvalidValue(Field(name), NumberValue(data),
                             name + " in body should be a multiple of " + show(f));
      }
    }
    if (s.minimum) {
      const double m = *s.minimum;
      const bool below = native(m) ? (s.exclusive_minimum ? i <= static_cast<int64_t>(m)
                                                          : i < static_cast<int64_t>(m))
                                   : (s.exclusive_minimum ? d <= m : d < m);
      if (below) {
        errors_.InvalidValue(Field(name), NumberValue(data),
                             name + " in body should be greater than " +
                                 (s.exclusive_minimum ? "" : "or equal to ") + show(m));
      }
    }
    if (s.maximum) {
      const double m = *s.maximum;
      const bool above = native(m) ? (s.exclusive_maximum ? i >= static_cast<int64_t>(m)
                                                          : i > static_cast<int64_t>(m))
                                   : (s.exclusive_maximum ? d >= m : d > m);
      if (above) {
        errors_.InvalidValue(Field(name), NumberValue(data),
                             name + " in body should be less than " +
                                 (s.exclusive_maximum ? "" : "or equal to ") + show(m));
      }
    }
  }

  // swag.IsFloat64AJSONInteger.
  static bool IsJsonInteger(double f) {
    if (std::isnan(f) || std::isinf(f)) return false;
    const double g = std::trunc(f);
    if (f == g) return true;
    return std::abs(f - g) /
               std::min(std::abs(f) + std::abs(g), std::numeric_limits<double>::max()) <
           1e-9;
  }

  void CheckArray(const Node& s, const json::array& data, const std::string& name) {
    if (s.items) {
      for (size_t i = 0; i < data.size(); ++i)
        Validate(*s.items, data[i], name + "[" + std::to_string(i) + "]");
    }
    const auto size = static_cast<int64_t>(data.size());
    if (s.min_items && size < *s.min_items) {
      errors_.InvalidValue(
          Field(name), size,
          name + " in body should have at least " + std::to_string(*s.min_items) + " items");
    }
    if (s.max_items && size > *s.max_items) {
      errors_.InvalidValue(
          Field(name), size,
          name + " in body should have at most " + std::to_string(*s.max_items) + " items");
    }
  }

  void CheckEnum(const Node& s, const json::value& data, const std::string& name) {
    if (!s.enum_values || s.enum_values->empty()) return;
    for (const json::value& allowed : *s.enum_values) {
      if (JsonEqual(allowed, data)) return;
    }
    std::vector<std::string> supported;
    for (const json::value& allowed : *s.enum_values) supported.push_back(ValueText(allowed));
    errors_.NotSupported(Field(name), ValueText(data), supported);
  }

  void CheckObject(const Node& s, const json::object& data, const std::string& name) {
    const auto size = static_cast<int64_t>(data.size());
    if (s.min_properties && size < *s.min_properties) {
      errors_.InvalidValue(Field(name), size,
                           name + " in body should have at least " +
                               std::to_string(*s.min_properties) + " properties");
    }
    if (s.max_properties && size > *s.max_properties) {
      errors_.InvalidValue(Field(name), size,
                           name + " in body should have at most " +
                               std::to_string(*s.max_properties) + " properties");
    }
    if (s.additional_properties_allowed == false) {
      for (const auto& kv : data) {
        if (s.Property(kv.key()) == nullptr) {
          errors_.Invalid(Field(name), kv.key(),
                          name + "." + std::string(kv.key()) + " in body is a forbidden property");
        }
      }
    } else if (s.additional_properties) {
      for (const auto& kv : data) {
        if (s.Property(kv.key()) == nullptr) {
          Validate(*s.additional_properties, kv.value(), name + "." + std::string(kv.key()));
        }
      }
    }
    for (const auto& [key, property] : s.properties) {
      if (const json::value* v = data.if_contains(key))
        Validate(*property, *v, name.empty() ? key : name + "." + key);
    }
    for (const std::string& key : s.required) {
      if (!data.contains(key)) errors_.Required(Field(name + "." + key));
    }
  }

  std::string prefix_;
  api::FieldErrors& errors_;
};

}  // namespace

void ValidateValue(const Node& node, const json::value& value, const std::string& name,
                   std::string_view prefix, api::FieldErrors& errors) {
  Validator(prefix, errors).Validate(node, value, name);
}

void ValidateListTypes(const Node& node, const json::value& value, const std::string& path,
                       api::FieldErrors& errors) {
  auto child = [&](std::string_view key) {
    return path.empty() ? std::string(key) : path + "." + std::string(key);
  };
  if (const json::object* o = value.if_object()) {
    for (const auto& kv : *o) {
      if (const Node* property = node.Property(kv.key())) {
        ValidateListTypes(*property, kv.value(), child(kv.key()), errors);
      } else if (node.additional_properties) {
        ValidateListTypes(*node.additional_properties, kv.value(),
                          path + "[" + std::string(kv.key()) + "]", errors);
      }
    }
    return;
  }
  const json::array* a = value.if_array();
  if (a == nullptr) return;
  if (node.list_type == "set" || node.list_type == "map") {
    // The identity of each item: itself for a set, its key fields for a map.
    std::vector<json::value> keys;
    for (const json::value& item : *a) {
      if (node.list_type == "set") {
        keys.push_back(item);
        continue;
      }
      json::object key;
      if (const json::object* fields = item.if_object()) {
        for (const std::string& k : node.list_map_keys) {
          if (const json::value* v = fields->if_contains(k)) key[k] = *v;
        }
      }
      keys.emplace_back(std::move(key));
    }
    for (size_t i = 0; i < keys.size(); ++i) {
      // kube reports only the second appearance of a value.
      size_t seen = 0;
      for (size_t j = 0; j < i; ++j) seen += JsonEqual(keys[i], keys[j]) ? 1 : 0;
      if (seen != 1) continue;
      errors.Duplicate(path + "[" + std::to_string(i) + "]", ValueText(keys[i]));
    }
  }
  if (node.items) {
    for (size_t i = 0; i < a->size(); ++i) {
      ValidateListTypes(*node.items, (*a)[i], path + "[" + std::to_string(i) + "]", errors);
    }
  }
}

}  // namespace berth::apiserver::crd
