#pragma once
// What the HTTP layer hands to request handlers and takes back from them.
// Handlers never see sockets: a Response is a body, or a stream of chunks
// (watch) that the connection pumps.

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace berth::apiserver {

struct Request {
  std::string method;  // "GET", "POST", ...
  std::string path;    // percent-decoded, without the query
  std::vector<std::pair<std::string, std::string>> query;  // form-decoded ('+' is a space)
  std::string accept;
  std::string content_type;
  std::string authorization;
  // Set by the HTTP server when the client presented a certificate that
  // verified against --client-ca-file: its subject's CN and O values
  // (kube's x509 authenticator: user name and groups).
  std::string client_certificate_user;
  std::vector<std::string> client_certificate_groups;
  std::string user_agent;
  std::string if_none_match;  // the If-None-Match header (conditional GET of the OpenAPI documents)
  // Set by the HTTP server, for the audit log: the request target as sent
  // (path and query), the client's address, the X-Forwarded-For and Audit-ID
  // headers.
  std::string request_uri;
  std::string remote_address;
  std::string forwarded_for;
  std::string audit_id;
  // Set by the API server once it has authenticated the request (empty
  // user: anonymous, or in-process with no identity of its own).
  std::string user;
  std::vector<std::string> groups;
  std::string body;
  // Set only by in-process callers (controllers, simulated kubelets): they are
  // part of the server and skip authentication. The HTTP server never sets it.
  bool trusted = false;
  // The user a trusted caller acts as ("system:kube-scheduler"; empty: the
  // server itself): see authorization_filter.h.
  std::string trusted_user;
  // Set by the HTTP server: the handler may answer with Response::when_ready
  // (a write acknowledged once durable, without holding a thread meanwhile).
  bool may_defer = false;
  // A WebSocket upgrade request: the subprotocols the client offers
  // (Sec-WebSocket-Protocol, comma-separated); empty for any other request.
  std::string websocket_protocols;
  // Warnings for the client (field validation's Warn, the kinds' own,
  // webhooks'): each is answered as a `Warning: 299 - "<text>"` header. Add
  // them with AddWarning.
  std::vector<std::string> warnings;

  // The first value of a query parameter, if present.
  std::optional<std::string_view> Query(std::string_view key) const;
  // A query parameter parsed as Go's strconv.ParseBool does (1,t,T,TRUE,true,True, 0,f,…);
  // absent or unparseable: `fallback`.
  bool QueryBool(std::string_view key, bool fallback = false) const;
  // Adds a warning for the client unless it already has it (kube's warning
  // recorder drops repeats: a write retried after a conflict warns once).
  void AddWarning(std::string text);
};

// A long-running response (watch). The connection calls Pump on its own
// strand whenever Wake was called or `PollInterval` passed, and writes what it
// returns as HTTP chunks, until `end`.
class ResponseStream {
 public:
  struct Chunk {
    std::string data;  // may be empty: nothing to send now
    bool end = false;  // the stream is over (after `data`)
  };
  virtual ~ResponseStream() = default;
  // Called once before the first Pump; `wake` may be called from any thread.
  virtual void Start(std::function<void()> wake) = 0;
  virtual Chunk Pump() = 0;
  // How often Pump runs without a wake (timeouts, bookmarks).
  virtual std::chrono::milliseconds PollInterval() const { return std::chrono::seconds(1); }
  // The client went away or the server is stopping.
  virtual void Cancel() = 0;
};

// A WebSocket connection's whole conversation, decided before the upgrade:
// the server accepts it with `protocol`, sends `messages` as binary frames
// and closes it (kube's channel protocols answering an error at once).
struct WebSocketAnswer {
  std::string protocol;
  std::vector<std::string> messages;
};

struct Response {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  std::shared_ptr<ResponseStream> stream;  // set: body is ignored, chunks are streamed
  // Set (only for a WebSocket upgrade request): the connection is upgraded
  // and has this conversation; status, headers and body are ignored.
  std::shared_ptr<WebSocketAnswer> websocket;
  // Set (only when the request allowed it, may_defer): the response must not be
  // sent before when_ready calls its argument, which it does exactly once, from
  // any thread (e.g. once the write it reports is durable).
  std::function<void(std::function<void()>)> when_ready;
  // Optional, with when_ready: called just before the held response is sent;
  // it may replace it (a write that failed after all answers an error instead).
  std::function<void(Response&)> finalize;
};

using Handler = std::function<Response(Request&)>;

// A path served beside the API by another part of the process (the
// scheduler's explain endpoint, profiles, the web UI): every request whose
// path starts with `prefix` goes to `handler`, after authentication.
struct Route {
  std::string prefix;
  Handler handler;
  // Served to unauthenticated clients too, as /healthz is: files anyone may
  // read (the web UI's page and scripts, which then ask for a token).
  bool anonymous = false;
};

// The handler of the first route whose prefix starts `path`, or nullptr.
const Handler* FindRoute(const std::vector<Route>& routes, std::string_view path);
// Whether the first route whose prefix starts `path` is anonymous.
bool AnonymousRoute(const std::vector<Route>& routes, std::string_view path);

// Percent-decoding of a path or (with plus_is_space) a form-encoded query value.
std::string PercentDecode(std::string_view in, bool plus_is_space);
// Splits "a=1&b=x+y" into decoded pairs.
std::vector<std::pair<std::string, std::string>> ParseQuery(std::string_view query);
// A request body's Content-Type that means JSON: application/json (any
// parameters), */*, or none at all.
bool IsJsonContentType(std::string_view content_type);
// A request body's Content-Type that means CBOR: application/cbor (any
// parameters; not application/cbor-seq).
bool IsCborContentType(std::string_view content_type);

}  // namespace berth::apiserver
