#pragma once
// Small objects for store tests.

#include <string>

#include "api/object.h"

namespace berth::store::testing {

// A pod named `name` in `ns` with the given labels (JSON object text) and nodeName.
inline api::ObjectPtr MakePod(const std::string& ns, const std::string& name,
                              const std::string& labels = "{}", const std::string& node = "") {
  std::string json = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
                     R"(","namespace":")" + ns + R"(","labels":)" + labels +
                     R"(},"spec":{"nodeName":")" + node +
                     R"(","containers":[{"name":"c","image":"nginx"}]}})";
  auto object = api::Object::Decode(json);
  if (!object.ok()) throw std::runtime_error(object.status().ToString());
  return object.value();
}

inline api::ObjectPtr MakeNode(const std::string& name) {
  auto object = api::Object::Decode(R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")" +
                                    name + R"("}})");
  if (!object.ok()) throw std::runtime_error(object.status().ToString());
  return object.value();
}

}  // namespace berth::store::testing
