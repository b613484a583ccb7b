#pragma once
// Parsing JSON text with Kubernetes' nesting limit. Boost.JSON's default depth
// (32) refuses objects kube accepts: a CRD whose schema embeds a pod template
// nests deeper than that. Every parse of a request body, a stored object or a
// server's answer goes through here.

#include <boost/json/value.hpp>
#include <boost/system/error_code.hpp>
#include <cstddef>
#include <string_view>

namespace berth::api {

// Go's encoding/json (behind kube's decoder) stops at 10,000 levels. Recursive
// code that walks objects (patches, field sets, validation) must stay within
// an 8 MiB thread stack at this depth: tests/e2e/json_depth_test.py checks it.
inline constexpr std::size_t kMaxJsonDepth = 10000;

// The error is boost::json's (its message names the exceeded depth).
boost::json::value ParseJson(std::string_view text, boost::system::error_code& ec);
// Throws boost::system::system_error on invalid JSON.
boost::json::value ParseJson(std::string_view text);

}  // namespace berth::api
