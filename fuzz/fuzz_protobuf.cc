// Protobuf request bodies (application/vnd.kubernetes.protobuf): the "k8s\0"
// envelope and the message read by the kind's schema. The first byte picks
// the kind (every built-in kind), DeleteOptions or Eviction. What decodes as
// a kind goes on as the API server takes it: decoded as an object.
#include "apiserver/schema/protobuf.h"
#include "fuzz_util.h"

using namespace berth;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input = fuzz::Bytes(data, size);
  if (input.empty()) return 0;
  const int pick = static_cast<unsigned char>(input[0]) % (api::kBuiltinKindCount + 2);
  input.remove_prefix(1);
  if (pick == api::kBuiltinKindCount) {
    (void)apiserver::DecodeProtobufDeleteOptions(input);
  } else if (pick == api::kBuiltinKindCount + 1) {
    (void)apiserver::DecodeProtobufEviction(input);
  } else {
    auto value = apiserver::DecodeProtobuf(input, static_cast<api::Kind>(pick));
    if (value.ok()) {
      if (auto object = api::Object::FromJson(*value); object.ok()) fuzz::CheckDecodedObject(**object);
    }
  }
  return 0;
}
