#pragma once
// Continue tokens of paginated lists: opaque to clients, they carry the
// revision the first page was read at and the last key returned, as
// "<revision>:<last key>" in base64url. The next page reads the same revision
// from the key after it.

#include <cstdint>
#include <string>
#include <string_view>

namespace berth::store {

std::string EncodeContinue(int64_t revision, std::string_view last_key);
// False when `token` is not one EncodeContinue made (bad base64, no colon, a
// revision that is not a positive integer).
bool DecodeContinue(std::string_view token, int64_t* revision, std::string* last_key);

}  // namespace berth::store
