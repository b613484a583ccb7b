#pragma once
// Helpers shared by the libFuzzer targets (fuzz_*.cc): turning the fuzzer's
// bytes into the inputs berth's entry points take, and checking invariants.
// A failed check prints what broke and aborts, which libFuzzer reports as a
// crash with the input that caused it.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include <boost/json/value.hpp>

#include "api/kinds.h"
#include "api/object.h"

namespace berth::fuzz {

inline std::string_view Bytes(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Aborts with `what` (and the two texts, when given) unless `ok`.
void Check(bool ok, std::string_view what, std::string_view a = {}, std::string_view b = {});

// JSON text parsed as the API server parses request bodies; nullopt when it
// is not JSON.
std::optional<boost::json::value> ParseJson(std::string_view text);

// The text before the first NUL byte and the text after it; without a NUL,
// nullopt and the whole input.
std::pair<std::optional<std::string_view>, std::string_view> SplitAtNul(std::string_view input);

// One of `choices`, picked by the input's first byte, which is consumed.
api::Kind PickKind(std::string_view& input, std::span<const api::Kind> choices);

// Decodes the JSON object `text` as an object of `kind` (apiVersion and kind
// set to the kind's), as a create of that kind would, and checks what holds
// for every object that decodes: its encoding decodes again to the same
// encoding, and validation and defaulting answer without crashing. Returns
// the decoded object, or nullptr when the input does not decode.
api::ObjectPtr CheckObjectOfKind(api::Kind kind, std::string_view text);

// The invariants of an object that decoded: encode(decode(x)) round trips;
// validation and defaulting run. Doubles may differ in their last bits:
// Boost.JSON 1.81's parser rounds some decimal texts to a neighbouring
// double (parse_options::numbers, a precise mode, came in a later Boost),
// so a large or long number can change by an ulp each time an object is
// read back.
void CheckDecodedObject(const api::Object& object);

// JSON equality with doubles compared to within a few ulps.
bool SameUpToDoubleRounding(const boost::json::value& a, const boost::json::value& b);

}  // namespace berth::fuzz
