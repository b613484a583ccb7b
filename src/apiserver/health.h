#pragma once
// kube-apiserver's health endpoints, /healthz, /livez and /readyz, as its
// healthz package serves them: each is a list of named checks.
//   GET /livez                  "ok", or 500 listing the checks and which failed
//   GET /livez?verbose          every check, "[+]ping ok", then "livez check passed"
//   GET /livez?exclude=store    a check left out ("[+]store excluded: ok")
//   GET /livez/ping             one check: "ok", or 500 "internal server error: ..."
// A failed check's line carries its reason ("[-]store failed: <why>"), where
// kube writes "reason withheld": berth's reasons name no secrets.

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/status.h"
#include "apiserver/http.h"

namespace berth::apiserver {

struct HealthCheck {
  std::string name;
  std::function<Status()> check;
};

// The answer of `root` ("livez") for a request to /<root> or /<root>/<check>;
// nullopt when the path is neither.
std::optional<Response> ServeHealth(std::string_view root, const std::vector<HealthCheck>& checks,
                                    const Request& request);

}  // namespace berth::apiserver
