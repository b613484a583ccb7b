#include "apiserver/health.h"

#include <vector>

namespace berth::apiserver {

namespace {

Response PlainText(int status, std::string body) {
  Response r;
  r.status = status;
  r.body = std::move(body);
  r.content_type = "text/plain; charset=utf-8";
  return r;
}

std::vector<std::string> ExcludedChecks(const Request& request) {
  std::vector<std::string> excluded;
  for (const auto& [key, value] : request.query) {
    if (key == "exclude" && !value.empty()) excluded.push_back(value);
  }
  return excluded;
}

// Go's %q of each name, joined with commas (kube's formatQuoted).
std::string Quoted(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) {
    if (!out.empty()) out += ",";
    out += "\"" + name + "\"";
  }
  return out;
}

Response ServeOne(const HealthCheck& check) {
  Status status = check.check();
  if (!status.ok()) return PlainText(500, "internal server error: " + status.message() + "\n");
  return PlainText(200, "ok");
}

Response ServeAll(std::string_view root, const std::vector<HealthCheck>& checks, const Request& request) {
  std::vector<std::string> excluded = ExcludedChecks(request);
  std::string lines;
  bool failed = false;
  for (const auto& check : checks) {
    if (std::erase(excluded, check.name) > 0) {
      lines += "[+]" + check.name + " excluded: ok\n";
      continue;
    }
    Status status = check.check();
    if (status.ok()) {
      lines += "[+]" + check.name + " ok\n";
    } else {
      lines += "[-]" + check.name + " failed: " + status.message() + "\n";
      failed = true;
    }
  }
  if (!excluded.empty()) {
    lines += "warn: some health checks cannot be excluded: no matches for " + Quoted(excluded) + "\n";
  }
  // Go's http.Error ends the text with a newline.
  if (failed) return PlainText(500, lines + std::string(root) + " check failed\n");
  if (!request.Query("verbose")) return PlainText(200, "ok");
  return PlainText(200, lines + std::string(root) + " check passed\n");
}

}  // namespace

std::optional<Response> ServeHealth(std::string_view root, const std::vector<HealthCheck>& checks,
                                    const Request& request) {
  std::string_view path = request.path;
  if (path.size() < root.size() + 1 || path[0] != '/' || path.substr(1, root.size()) != root) return std::nullopt;
  std::string_view rest = path.substr(root.size() + 1);
  if (rest.empty() || rest == "/") return ServeAll(root, checks, request);
  if (rest[0] != '/') return std::nullopt;
  std::string_view name = rest.substr(1);
  for (const auto& check : checks) {
    if (check.name == name) return ServeOne(check);
  }
  return std::nullopt;
}

}  // namespace berth::apiserver
