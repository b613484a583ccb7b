#pragma once
// metav1.Time on the wire: RFC 3339 in UTC with whole seconds
// ("2026-11-22T06:38:56Z").

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace berth::api {

std::string FormatRfc3339(std::chrono::system_clock::time_point t);
std::string NowRfc3339();
// metav1.MicroTime on the wire: as above with six fractional digits
// ("2026-11-22T06:38:56.123456Z"), as Leases' acquireTime and renewTime.
std::string FormatMicroTime(std::chrono::system_clock::time_point t);
// Reads "YYYY-MM-DDTHH:MM:SS" followed by anything (fraction, Z, offset
// ignored: berth writes UTC). nullopt when malformed.
std::optional<std::chrono::system_clock::time_point> ParseRfc3339(std::string_view text);

}  // namespace berth::api
