// Object::Decode, the API server's decode of a request body of any kind
// (apiVersion/kind from the input), with the typed view of the kinds that
// have one: encode(decode(x)) must decode again to the same encoding.
#include "api/object.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto object = berth::api::Object::Decode(berth::fuzz::Bytes(data, size));
  if (object.ok()) berth::fuzz::CheckDecodedObject(**object);
  return 0;
}
