#pragma once
// Quantities inside JSON documents, read as kube's decoder reads them
// (Quantity.UnmarshalJSON): a string, spaces around it trimmed, or a bare
// JSON number, parsed from the number's text. A parsed document no longer
// holds the text a client sent for a number, so a number reads as the text
// Go's encoder writes for it: an integer's digits, a float64's shortest
// round-trip digits (exponent form below 1e-6 and from 1e21 up). So 0.15 is
// "0.15" and 1e3 is "1000" (kube, reading "1e3" itself, would keep the
// exponent form and print "1e3").

#include <boost/json/fwd.hpp>
#include <optional>
#include <string>

#include "api/kinds.h"
#include "api/quantity.h"
#include "api/status.h"

namespace berth::api {

// The text kube's decoder parses for the quantity `value` holds; nullopt
// when `value` is neither a string nor a number.
std::optional<std::string> QuantityText(const boost::json::value& value);

// `value` read as a quantity; BadRequest when it is neither a string nor a
// number, or its text does not parse (Quantity::Parse's message).
Result<Quantity> QuantityFromJson(const boost::json::value& value);

// Rewrites each JSON number in the quantity fields `kind`'s objects have
// outside a pod spec as the string kube stores for it ("cpu": 0.15 becomes
// "150m", 1024 stays "1024"); in resource lists (requests, limits, capacity,
// hard, ...) rounded up to thousandths first, as kube's
// SetDefaults_ResourceList does (0.0001 becomes "1m"). Strings are left as
// the client wrote them, and so is a number that is no valid quantity, for
// validation to name.
void CanonicalizeQuantities(Kind kind, boost::json::object& object);
// The same for a pod spec: containers' (init and ephemeral too) requests and
// limits, the pod's resources and overhead, emptyDir size limits and the
// claims of generic ephemeral volumes.
void CanonicalizePodSpecQuantities(boost::json::object& spec);

}  // namespace berth::api
