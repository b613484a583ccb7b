#pragma once
// Helpers for the validation tests (validation_*_test.cc): objects from JSON
// text, and the message ValidateObject / ValidateObjectUpdate give.

#include <gtest/gtest.h>

#include <string>

#include "api/validation/validation.h"

namespace berth::api::testing {

inline ObjectPtr MustDecode(const std::string& json) {
  auto object = Object::Decode(json);
  EXPECT_TRUE(object.ok()) << object.status().message() << "\n" << json;
  return object.ok() ? object.value() : nullptr;
}

// The Status message of ValidateObject; "" when valid.
inline std::string Problems(const std::string& json) {
  ObjectPtr object = MustDecode(json);
  if (!object) return "<does not decode>";
  Status s = ValidateObject(*object);
  return s.ok() ? "" : s.message();
}

// The Status message of ValidateObjectUpdate from `current` to `next`; "" when allowed.
inline std::string UpdateProblems(const std::string& next, const std::string& current) {
  ObjectPtr n = MustDecode(next), c = MustDecode(current);
  if (!n || !c) return "<does not decode>";
  Status s = ValidateObjectUpdate(*n, *c);
  return s.ok() ? "" : s.message();
}

// An object of `api_version`/`kind` named `name` in namespace "default"
// (none when cluster-scoped), with `body` (JSON members, no braces) after metadata.
inline std::string Obj(const std::string& api_version, const std::string& kind,
                       const std::string& name, const std::string& body, bool namespaced = true,
                       const std::string& extra_meta = "") {
  std::string meta = R"({"name":")" + name + "\"";
  if (namespaced) meta += R"(,"namespace":"default")";
  if (!extra_meta.empty()) meta += "," + extra_meta;
  meta += "}";
  std::string out =
      R"({"apiVersion":")" + api_version + R"(","kind":")" + kind + R"(","metadata":)" + meta;
  if (!body.empty()) out += "," + body;
  return out + "}";
}

// A pod template labelled app=web whose pod runs with `restart` (none when "").
inline std::string Template(const std::string& restart = "",
                            const std::string& labels = R"({"app":"web"})") {
  std::string spec = R"({"containers":[{"name":"c","image":"nginx"}])";
  if (!restart.empty()) spec += R"(,"restartPolicy":")" + restart + "\"";
  return R"({"metadata":{"labels":)" + labels + R"(},"spec":)" + spec + "}}";
}

}  // namespace berth::api::testing
