#include "cluster/explain_report.h"

#include <algorithm>
#include <boost/json.hpp>
#include <map>
#include <string>
#include <vector>

#include "api/codec/json_parse.h"
#include "client/http_client.h"

namespace berth::cluster {
namespace {

namespace json = boost::json;

// Above this many nodes the filter table is summarised: counts per reason,
// and the closest nodes in full.
constexpr size_t kFullTableNodes = 30;
constexpr size_t kClosestShown = 10;
constexpr size_t kScoresShown = 10;

std::string Str(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

int64_t Int(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  if (!v) return 0;
  if (v->is_int64()) return v->get_int64();
  if (v->is_uint64()) return static_cast<int64_t>(v->get_uint64());
  return 0;
}

const json::array& Arr(const json::object& o, std::string_view key) {
  static const json::array kEmpty;
  const json::value* v = o.if_contains(key);
  return v && v->is_array() ? v->get_array() : kEmpty;
}

const json::object& Obj(const json::object& o, std::string_view key) {
  static const json::object kEmpty;
  const json::value* v = o.if_contains(key);
  return v && v->is_object() ? v->get_object() : kEmpty;
}

std::string JoinStrings(const json::array& items, std::string_view separator) {
  std::string out;
  for (const auto& item : items) {
    if (!item.is_string()) continue;
    out += (out.empty() ? "" : std::string(separator)) + std::string(item.get_string());
  }
  return out;
}

// Prints rows as left-aligned columns two spaces apart, indented.
void PrintTable(const std::vector<std::vector<std::string>>& rows, std::FILE* out) {
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()));
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  for (const auto& row : rows) {
    std::string line = "  ";
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(widths[i] - row[i].size() + 2, ' ');
    }
    std::fprintf(out, "%s\n", line.c_str());
  }
}

// "TaintToleration: node(s) had untolerated taint {a: b}; NodeResourcesFit: Insufficient cpu", or
// "fits".
std::string FilterResult(const json::object& node) {
  std::string out;
  for (const auto& f : Arr(node, "filters")) {
    const json::object& v = f.get_object();
    const std::string code = Str(v, "code");
    if (code == "Success" || code == "Skip") continue;
    out +=
        (out.empty() ? "" : "; ") + Str(v, "plugin") + ": " + JoinStrings(Arr(v, "reasons"), ", ");
  }
  if (out.empty()) {
    const json::object& status = Obj(node, "status");
    if (Str(status, "code") == "Success") return "fits";
    return JoinStrings(Arr(status, "reasons"), ", ");
  }
  return out;
}

void PrintFilters(const json::object& e, std::FILE* out) {
  const json::array& nodes = Arr(e, "nodes");
  if (nodes.empty()) return;
  std::vector<std::string> plugins;
  for (const auto& f : Arr(nodes.front().get_object(), "filters"))
    plugins.push_back(Str(f.get_object(), "plugin"));
  std::fprintf(out,
      "\nFilter (%zu nodes, %lld feasible; every plugin runs on every node, in this order: ",
      nodes.size(), static_cast<long long>(Int(e, "feasibleNodes")));
  for (size_t i = 0; i < plugins.size(); ++i)
    std::fprintf(out, "%s%s", i ? ", " : "", plugins[i].c_str());
  std::fprintf(out, ")\n");
  if (nodes.size() <= kFullTableNodes) {
    std::vector<std::vector<std::string>> rows{{"NODE", "RESULT"}};
    for (const auto& n : nodes)
      rows.push_back({Str(n.get_object(), "name"), FilterResult(n.get_object())});
    PrintTable(rows, out);
    return;
  }
  std::vector<std::pair<std::string, int64_t>> counts;
  for (const auto& [reason, count] : Obj(e, "reasonCounts"))
    counts.emplace_back(reason, count.to_number<int64_t>());
  if (counts.empty()) {
    std::fprintf(out, "  no node rejects the pod\n");
    return;
  }
  std::fprintf(out,
      "  rejections by reason (each node counted by its first rejection, as kube counts):\n");
  std::sort(counts.begin(), counts.end(),
            [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::vector<std::string>> rows{{"NODES", "REASON"}};
  for (const auto& [reason, count] : counts) rows.push_back({"  " + std::to_string(count), reason});
  PrintTable(rows, out);
  std::map<std::string, const json::object*> by_name;
  for (const auto& n : nodes) by_name[Str(n.get_object(), "name")] = &n.get_object();
  const json::array& closest = Arr(e, "closestNodes");
  if (closest.empty()) return;
  std::fprintf(out, "  closest nodes (fewest failing plugins, then smallest shortfall):\n");
  rows = {{"NODE", "RESULT"}};
  for (size_t i = 0; i < closest.size() && i < kClosestShown; ++i) {
    auto it = by_name.find(std::string(closest[i].get_string()));
    if (it != by_name.end()) rows.push_back({it->first, FilterResult(*it->second)});
  }
  PrintTable(rows, out);
}

void PrintScores(const json::object& e, std::FILE* out) {
  const json::array& scores = Arr(e, "scores");
  if (scores.empty()) return;
  std::fprintf(out, "\nScore (%zu feasible nodes, best first; each cell: raw -> normalised x weight)\n",
              scores.size());
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header{"NODE"};
  for (const auto& c : Arr(scores.front().get_object(), "plugins"))
    header.push_back(Str(c.get_object(), "plugin"));
  header.emplace_back("TOTAL");
  rows.push_back(header);
  for (size_t i = 0; i < scores.size() && i < kScoresShown; ++i) {
    const json::object& row = scores[i].get_object();
    std::vector<std::string> cells{Str(row, "node")};
    for (const auto& c : Arr(row, "plugins")) {
      const json::object& cell = c.get_object();
      cells.push_back(std::to_string(Int(cell, "raw")) + " -> " +
                      std::to_string(Int(cell, "normalized")) + "x" +
                      std::to_string(Int(cell, "weight")));
    }
    cells.push_back(std::to_string(Int(row, "total")));
    rows.push_back(std::move(cells));
  }
  PrintTable(rows, out);
  if (scores.size() > kScoresShown) std::fprintf(out, "  (%zu more)\n", scores.size() - kScoresShown);
  const json::object& s = Obj(e, "selection");
  std::string line = "Selection (" + Str(s, "strategy") + "): " + Str(s, "chosen");
  if (!Str(s, "runnerUp").empty()) {
    line += ", margin " + std::to_string(Int(s, "margin")) + " over " + Str(s, "runnerUp");
  }
  if (const json::value* random = s.if_contains("randomTieBreak");
      random && random->is_bool() && random->get_bool()) {
    line += Str(s, "strategy") == "WeightedRandom"
                ? "; drawn at random weighted by score"
                : "; a random tie-break among " + std::to_string(Int(s, "tied")) +
                      " nodes with the top score decides";
  } else {
    line += "; no random tie-break";
  }
  std::fprintf(out, "%s\n", line.c_str());
}

void PrintReport(const json::object& e, std::FILE* out) {
  std::fprintf(out, "Pod %s (schedulerName %s): %s", Str(e, "pod").c_str(),
              Str(e, "schedulerName").c_str(), Str(e, "phase").c_str());
  if (!Str(e, "nodeName").empty())
    std::fprintf(out, " on %s (explained with the pod taken off it)", Str(e, "nodeName").c_str());
  if (!Str(e, "nominatedNodeName").empty())
    std::fprintf(out, ", nominated to %s", Str(e, "nominatedNodeName").c_str());
  std::fprintf(out, "\n%s\n", Str(e, "summary").c_str());
  PrintFilters(e, out);
  PrintScores(e, out);
  if (const json::object& d = Obj(e, "decision"); !d.empty()) {
    std::string line =
        "\nWhen it was scheduled (" +
        std::to_string(static_cast<long long>(d.at("secondsAgo").to_number<double>())) +
        "s ago): " + Str(d, "node") + " among " + std::to_string(Int(d, "feasibleNodes")) +
        " feasible nodes";
    if (!Str(d, "runnerUp").empty()) {
      line += ", score " + std::to_string(Int(d, "score")) + ", margin " +
              std::to_string(Int(d, "margin")) + " over " + Str(d, "runnerUp");
    }
    const json::value* random = d.if_contains("randomTieBreak");
    if (random && random->is_bool() && random->get_bool()) {
      line +=
          Str(d, "strategy") == "WeightedRandom"
              ? "; drawn at random weighted by score"
              : "; a random tie-break among " + std::to_string(Int(d, "tied")) + " nodes decided";
    }
    std::fprintf(out, "%s\n", line.c_str());
  }
  const json::array& suggestions = Arr(e, "suggestions");
  if (!suggestions.empty()) {
    std::fprintf(out, "\nWhat would make it fit:\n");
    for (const auto& s : suggestions) std::fprintf(out, "  - %s\n", std::string(s.get_string()).c_str());
  }
  const json::object& p = Obj(e, "preemption");
  if (const json::value* considered = p.if_contains("considered");
      considered && considered->as_bool()) {
    if (p.at("helps").as_bool()) {
      std::fprintf(out,
          "\nPreemption: would evict %s on %s (%lld PodDisruptionBudget violations; %lld candidate "
          "nodes)\n",
          JoinStrings(Arr(p, "victims"), ", ").c_str(), Str(p, "node").c_str(),
          static_cast<long long>(Int(p, "pdbViolations")),
          static_cast<long long>(Int(p, "candidates")));
    } else {
      std::fprintf(out, "\nPreemption: would not help: %s\n", Str(p, "reason").c_str());
    }
  }
  const json::array& notes = Arr(e, "notes");
  if (!notes.empty()) {
    std::fprintf(out, "\nNotes:\n");
    for (const auto& n : notes) std::fprintf(out, "  - %s\n", std::string(n.get_string()).c_str());
  }
}

}  // namespace

int ExplainPod(const ExplainPodFlags& f, std::FILE* out, std::FILE* err) {
  if (!f.output.empty() && f.output != "json") {
    std::fprintf(err, "error: --output must be json (or omitted for the report), not %s\n",
                 f.output.c_str());
    return 1;
  }
  auto http = client::HttpClient::Connect(f.server);
  if (!http.ok()) {
    std::fprintf(err, "error: --server %s: %s\n", f.server.c_str(),
                 http.status().message().c_str());
    return 1;
  }
  auto response =
      http.value()->Request("GET", "/debug/explain/namespaces/" + f.ns + "/pods/" + f.name);
  if (!response.ok()) {
    std::fprintf(err, "error: %s: %s\n", f.server.c_str(), response.status().message().c_str());
    return 1;
  }
  boost::system::error_code ec;
  json::value body = api::ParseJson(response->body, ec);
  if (response->status != 200) {
    // kubectl's words for a Status: "Error from server (NotFound): …".
    if (!ec && body.is_object()) {
      const json::object& status = body.get_object();
      std::fprintf(err, "Error from server (%s): %s\n", Str(status, "reason").c_str(),
                   Str(status, "message").c_str());
    } else {
      std::fprintf(err, "error: %s answered %d: %s\n", f.server.c_str(), response->status,
                   response->body.c_str());
    }
    return 1;
  }
  if (ec || !body.is_object()) {
    std::fprintf(err, "error: %s answered something that is not an explanation\n",
                 f.server.c_str());
    return 1;
  }
  if (f.output == "json") {
    std::fprintf(out, "%s\n", response->body.c_str());
  } else {
    PrintReport(body.get_object(), out);
  }
  return 0;
}

}  // namespace berth::cluster
