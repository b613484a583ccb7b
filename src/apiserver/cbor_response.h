#pragma once
// Serving application/cbor (kube-apiserver 1.32's CBOR serializer) on top of
// handlers that answer JSON: a request whose Accept prefers CBOR has its JSON
// answer transcoded in one place (ApiServer::Handle, for resource requests —
// discovery, /version, /rpc and the OpenAPI documents stay JSON, as in kube).
//
// A single object, a list or a Status becomes one self-described CBOR item
// (Content-Type application/cbor). A watch becomes a CBOR sequence (RFC 8742)
// of WatchEvent items, each {"type": …, "object": <the object as its own
// self-described item>} as kube's RawExtension embeds it, with Content-Type
// application/cbor;stream=watch.

#include <string>
#include <string_view>

#include "apiserver/http.h"

namespace berth::apiserver {

inline constexpr std::string_view kCborWatchContentType = "application/cbor;stream=watch";

// Whether `accept` ranks application/cbor above every JSON type berth serves
// (application/json, application/*, */*), by q-value and then by order.
// Table requests (as=Table) never do.
bool PrefersCbor(std::string_view accept);

// `response` (JSON) in CBOR; `watch`: the body or stream is newline-delimited
// WatchEvent JSON. Responses that are not JSON are returned unchanged.
Response ToCbor(Response response, bool watch);

// Newline-delimited WatchEvent JSON lines to the CBOR sequence kube writes.
// A trailing partial line is left in `lines` for the next call.
std::string WatchEventsToCbor(std::string& lines);

}  // namespace berth::apiserver
