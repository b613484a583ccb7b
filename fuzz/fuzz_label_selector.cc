// Label selectors in both forms: the string syntax (?labelSelector=) must
// print back to text that parses to the same selector; the structured JSON
// form (matchLabels/matchExpressions) must answer without crashing.
#include "api/selector.h"
#include "fuzz_util.h"

using namespace berth;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input = fuzz::Bytes(data, size);
  const api::Labels labels{{"app", "web"}, {"tier", "frontend"}, {"n", "12"}};
  if (auto s = api::LabelSelector::Parse(input); s.ok()) {
    std::string text = s->ToString();
    auto again = api::LabelSelector::Parse(text);
    fuzz::Check(again.ok(), "a selector's text does not parse", text,
                again.ok() ? "" : again.status().message());
    fuzz::Check(again->ToString() == text, "a selector's text is not stable", text, again->ToString());
    fuzz::Check(again->Matches(labels) == s->Matches(labels), "the reparsed selector matches differently",
                text);
  }
  if (auto value = fuzz::ParseJson(input)) {
    if (auto s = api::LabelSelector::FromJson(*value); s.ok()) {
      (void)s->Matches(labels);
      (void)s->ToString();
    }
  }
  return 0;
}
