// Field selectors (?fieldSelector=): what parses prints back to text that
// parses to the same selector; support checks and matching run.
#include "api/selector.h"
#include "fuzz_util.h"

using namespace berth;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto s = api::FieldSelector::Parse(fuzz::Bytes(data, size));
  if (!s.ok()) return 0;
  (void)s->CheckSupported(api::Kind::kPod);
  (void)s->CheckSupported(api::Kind::kEvent);
  // A field ending in '!' prints as "a!=v", which reads back as field "a"
  // with !=: kube's String() has the same ambiguity (no such field exists).
  for (const auto& r : s->requirements()) {
    if (r.field.ends_with('!')) return 0;
  }
  std::string text = s->ToString();
  auto again = api::FieldSelector::Parse(text);
  fuzz::Check(again.ok(), "a field selector's text does not parse", text,
              again.ok() ? "" : again.status().message());
  fuzz::Check(again->ToString() == text, "a field selector's text is not stable", text, again->ToString());
  auto field = [](std::string_view f) { return f == "spec.nodeName" ? std::string("n1") : std::string(); };
  fuzz::Check(again->Matches(field) == s->Matches(field), "the reparsed field selector matches differently",
              text);
  return 0;
}
