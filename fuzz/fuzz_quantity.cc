// Quantity::Parse: a quantity that parses prints canonically, and its
// canonical text parses back to an equal quantity that prints the same.
#include "api/quantity.h"
#include "fuzz_util.h"

using namespace berth;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto q = api::Quantity::Parse(fuzz::Bytes(data, size));
  if (!q.ok()) return 0;
  std::string text = q->ToString();
  auto again = api::Quantity::Parse(text);
  fuzz::Check(again.ok(), "a quantity's canonical text does not parse", text,
              again.ok() ? "" : again.status().message());
  fuzz::Check(again->Compare(*q) == 0, "the canonical text parses to another value", text);
  fuzz::Check(again->ToString() == text, "the canonical text is not stable", text, again->ToString());
  (void)q->Value();
  (void)q->MilliValue();
  (void)q->Sign();
  fuzz::Check(q->IsZero() == (q->Sign() == 0), "IsZero disagrees with Sign", text);
  return 0;
}
