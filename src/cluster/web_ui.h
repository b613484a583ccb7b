#pragma once
// berth's web dashboard at /ui/: plain HTML, CSS and JavaScript from web/ui/,
// compiled into the binary (cmake/EmbedWebAssets.cmake), so it works with no
// network and no CDN. The page reads everything through the same origin: the
// Kubernetes API (list, then watch) for nodes, pods and events, /metrics for
// the throughput and latency charts, and the scheduler's explain endpoint
// (/debug/explain/namespaces/NS/pods/NAME) for pending pods.
//
// `berth serve` hangs WebUiRoute() beside its API. The standalone scheduler has
// no API of its own: it serves WebUiRoute() and ApiReadThroughRoute(), which
// passes the page's reads (GET, including watch streams) of nodes, pods and
// events on to its API server with the scheduler's own client configuration
// (kubeconfig, TLS, credentials); nothing else reaches the server through it.
//
// With --token-file the API needs a bearer token, which the page asks for
// (a sign-in form, as kube's dashboard has) and keeps in the tab's
// sessionStorage; it sends it as `Authorization: Bearer` with every request
// and watch. The page's own files need none: WebUiRoute is served before
// authentication (an anonymous Route). The scheduler's endpoint is
// loopback-only and unauthenticated, so its read-through is limited to what
// the page needs and reads as the scheduler.
//
// The handlers are thread-safe (they hold no mutable state but the read-through's
// per-request connections).

#include <span>
#include <string>
#include <string_view>

#include "apiserver/http.h"
#include "client/rest_config.h"

namespace berth::cluster {

// One embedded file: its path below web/ui/ ("index.html", "app.js") and bytes.
struct WebAsset {
  std::string_view path;
  std::string_view body;
};

// Every file of web/ui/, sorted by path (generated at build time).
std::span<const WebAsset> WebUiAssets();

// The Content-Type berth answers for an asset, from its extension.
std::string_view WebAssetContentType(std::string_view path);

// GET or HEAD /ui/FILE answers the file (/ui/ is index.html), /ui answers a
// redirect to /ui/; an unknown file is a 404 Status, another method a 405.
apiserver::Route WebUiRoute();

// Routes /api and /apis on to the API server `config` names, through
// client::HttpClient with its TLS and credentials: GET of nodes, pods and
// events (lists, single objects and watches, cluster-wide or in one
// namespace) and the discovery documents are answered with the server's
// status and body, watches streamed line by line (each on a client of its
// own); any other method is a 405, any other resource a 403 Status. The
// reads' client is made at the first request (and again after a failure),
// so a server that is not up yet only fails the requests made before it is.
apiserver::Route ApiReadThroughRoute(client::RestConfig config);
// The same for a bare URL ("http://HOST:PORT"): no credentials, no rate limit.
apiserver::Route ApiReadThroughRoute(std::string server);

}  // namespace berth::cluster
