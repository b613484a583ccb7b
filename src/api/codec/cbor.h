#pragma once
// CBOR (RFC 8949) as kube-apiserver 1.32 reads and writes it for
// application/cbor (k8s.io/apimachinery/pkg/runtime/serializer/cbor), mapped
// onto the JSON values berth stores.
//
// Writing follows kube's encoder (internal/modes/encode.go): the item is
// enclosed in the self-described CBOR tag 55799 (bytes d9 d9 f7); strings and
// map keys are CBOR *byte* strings (kube's StringToByteString and
// FieldNameToByteString); map entries are sorted bytewise by their encoded
// key (RFC 8949 4.2.1); integers use the shortest head; floats the shortest
// of float16/32/64 that holds the value exactly; lengths are always definite.
//
// Reading follows kube's decoder (internal/modes/decode.go) and is strict:
// the self-described tag is optional; text and byte strings both become JSON
// strings (a byte string inside tag 21/22/23, "expected later encoding",
// becomes its base64url/base64/base16 text, as kube renders []byte); tag 0
// must hold a text string and tag 1 a number (an RFC 3339 string results);
// other tags are transparent except the bignums (2, 3), which are refused.
// Refused as well, each with a BadRequest naming the problem: duplicate or
// non-string map keys, nesting deeper than 64, arrays or maps of more than
// 1024 entries, integers outside int64, NaN and infinities, simple values
// other than false/true/null (undefined included), invalid UTF-8, ill-formed
// heads, truncated input and trailing bytes. Indefinite lengths are accepted,
// as kube accepts them. Lengths are checked against the remaining input before
// anything is allocated, so a hostile header cannot make it allocate more
// than a small multiple of the input's size.
//
// Thread-safe: both functions are pure.

#include <boost/json/value.hpp>
#include <string>
#include <string_view>

#include "api/status.h"

namespace berth::api {

inline constexpr std::string_view kCborContentType = "application/cbor";
// The head of tag 55799 that prefixes everything kube's encoder writes.
inline constexpr std::string_view kSelfDescribedCbor = "\xd9\xd9\xf7";
// kube's decoder limits (MaxNestedLevels, MaxArrayElements, MaxMapPairs).
inline constexpr int kCborMaxNesting = 64;
inline constexpr uint64_t kCborMaxElements = 1024;

// Decodes exactly one CBOR data item (all of `bytes`) into JSON.
Result<boost::json::value> DecodeCbor(std::string_view bytes);

// The CBOR encoding of `value`, self-described tag first. Doubles that are
// NaN or infinite (which JSON cannot carry) are written as CBOR null.
std::string EncodeCbor(const boost::json::value& value);

// As EncodeCbor without the leading tag: for embedding in a larger item.
void AppendCborItem(std::string& out, const boost::json::value& value);
// A CBOR byte string holding `text`, as kube writes every string.
void AppendCborString(std::string& out, std::string_view text);

}  // namespace berth::api
