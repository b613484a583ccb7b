#pragma once
// `berth explain pod NAME`: why a pod is pending (or placed where it is) and
// what would make it fit, as the scheduler answers it at
// GET /debug/explain/namespaces/{ns}/pods/{name} (cluster/explain_route.h) —
// on `berth serve`'s API address or on a standalone scheduler's --listen
// address. A human report by default: the filter table (above 30 nodes,
// rejections counted by reason and the closest nodes in full), the top
// scores and the selection, the decision when it was scheduled, suggestions,
// preemption and notes; with output "json", the scheduler's answer as it is.

#include <cstdio>
#include <string>

namespace berth::cluster {

// The command's flags as written.
struct ExplainPodFlags {
  std::string name;
  std::string ns = "default";
  std::string server = "http://127.0.0.1:8080";
  std::string output;  // "json", or "" for the report
};

// Asks `flags.server` and prints the report (or the JSON) on `out`. Errors
// go to `err`: a Status answer in kubectl's words ("Error from server
// (NotFound): …"), anything else as "error: …" naming the flag or the
// server. Returns the exit status: 0, or 1.
int ExplainPod(const ExplainPodFlags& flags, std::FILE* out, std::FILE* err);

}  // namespace berth::cluster
