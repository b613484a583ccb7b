// CBOR request bodies (application/cbor): DecodeCbor. What decodes encodes
// (EncodeCbor) to CBOR that decodes to the same JSON value.
#include <boost/json/serialize.hpp>

#include "api/codec/cbor.h"
#include "fuzz_util.h"

using namespace berth;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto value = api::DecodeCbor(fuzz::Bytes(data, size));
  if (!value.ok()) return 0;
  std::string encoded = api::EncodeCbor(*value);
  auto again = api::DecodeCbor(encoded);
  fuzz::Check(again.ok(), "EncodeCbor's output does not decode", boost::json::serialize(*value),
              again.ok() ? "" : again.status().message());
  fuzz::Check(*again == *value, "a CBOR round trip changes the value", boost::json::serialize(*value),
              boost::json::serialize(*again));
  return 0;
}
