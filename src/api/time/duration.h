#pragma once
// Durations as Kubernetes writes them: Go's time.ParseDuration syntax in flags
// and annotations ("30s", "1m30s", "1.5h"), and kubectl's human-readable ages
// ("45s", "3m20s", "2d3h").

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace berth::api {

// Go's time.ParseDuration for the units h, m, s and ms, in any sequence
// ("1h2m3.5s"); "0" alone is zero. Sub-millisecond parts are truncated.
// nullopt for anything else: empty text, a sign, a missing or unknown unit,
// a malformed number.
std::optional<std::chrono::milliseconds> ParseGoDuration(std::string_view text);

// Go's time.Duration.String, as kube's messages print durations: "10s",
// "1m30s", "15m0s", "1h0m0s", "1.5s", "250ms", "0s".
std::string FormatGoDuration(std::chrono::nanoseconds d);

// Kubernetes' duration.HumanDuration, as kubectl prints ages: "45s", "3m20s",
// "5h", "2d3h", "3y45d"; "0s" for slightly negative (clock skew) and
// "<invalid>" below -1s.
std::string HumanDuration(std::chrono::seconds d);

}  // namespace berth::api
