#pragma once
// Standard base64 (RFC 4648, with padding) as Go's encoding/base64
// StdEncoding reads and writes it: how a Secret's data and a ConfigMap's
// binaryData travel in JSON. Decoding skips '\r' and '\n' and reports the
// first bad byte's offset exactly as Go does, since kube's decoder puts it in
// its message ("illegal base64 data at input byte 4").

#include <cstddef>
#include <string>
#include <string_view>
#include <variant>

namespace berth::api {

std::string Base64Encode(std::string_view bytes);

// The decoded bytes, or the offset Go's CorruptInputError names.
struct Base64Corrupt {
  size_t offset;
};
std::variant<std::string, Base64Corrupt> Base64Decode(std::string_view text);

}  // namespace berth::api
