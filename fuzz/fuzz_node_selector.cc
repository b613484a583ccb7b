// Node selectors and node affinity terms read from JSON (as in a pod's
// spec.affinity.nodeAffinity and a PersistentVolume's spec.nodeAffinity),
// then matched against a node's labels and name.
#include "api/codec/json_reader.h"
#include "api/node_selector.h"
#include "fuzz_util.h"

using namespace berth;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto value = fuzz::ParseJson(fuzz::Bytes(data, size));
  if (!value || !value->is_object()) return 0;
  const api::Labels labels{{"kubernetes.io/hostname", "n1"}, {"zone", "a"}, {"cpu", "8"}};
  {
    api::JsonReader reader;
    api::NodeSelector selector = api::ReadNodeSelector(reader, value->get_object(), api::FieldPath());
    if (reader.ok()) (void)selector.Matches(labels, "n1");
  }
  {
    api::JsonReader reader;
    api::NodeSelectorTerm term = api::ReadNodeSelectorTerm(reader, value->get_object(), api::FieldPath());
    if (reader.ok()) {
      (void)term.Matches(labels, "n1");
      for (const auto& r : term.match_fields) (void)r.MatchesField("n1");
    }
  }
  return 0;
}
