#pragma once
// The three PATCH targets share their input's shape: the original object's
// JSON, a NUL byte, then the patch body exactly as a client sends it. Without
// a NUL the whole input is the patch, applied to a small pod.

#include <optional>
#include <string>
#include <string_view>

#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include "api/kinds.h"
#include "apiserver/patch/patch.h"
#include "fuzz_util.h"

namespace berth::fuzz {

inline constexpr std::string_view kPatchBasePod = R"({"apiVersion":"v1","kind":"Pod",
  "metadata":{"name":"p","namespace":"default","labels":{"app":"web"},"finalizers":["a","b"]},
  "spec":{"containers":[{"name":"c","image":"nginx","ports":[{"containerPort":80,"protocol":"TCP"}],
  "env":[{"name":"A","value":"1"}]}],"tolerations":[{"key":"k","operator":"Exists"}]}})";

// Applies the patch; the result (when the patch applies) is returned for the
// target's own checks.
inline std::optional<boost::json::value> ApplyFuzzPatch(apiserver::PatchType type, std::string_view input,
                                                         boost::json::value* original_out = nullptr) {
  auto [original_text, patch] = SplitAtNul(input);
  auto original = ParseJson(original_text.value_or(kPatchBasePod));
  if (!original) return std::nullopt;
  api::Kind kind = api::Kind::kPod;
  if (original->is_object()) {
    const auto& o = original->get_object();
    auto* av = o.if_contains("apiVersion");
    auto* k = o.if_contains("kind");
    if (av && k && av->is_string() && k->is_string()) {
      if (auto found = api::KindFromApiVersion(av->get_string(), k->get_string())) kind = *found;
    }
  }
  auto result = apiserver::ApplyPatch(type, kind, *original, patch);
  if (original_out) *original_out = *original;
  if (!result.ok()) return std::nullopt;
  // What the API server does next with a patched object.
  if (result->is_object()) {
    if (auto object = api::Object::FromJson(*result); object.ok()) CheckDecodedObject(**object);
  }
  return std::move(result).value();
}

}  // namespace berth::fuzz
