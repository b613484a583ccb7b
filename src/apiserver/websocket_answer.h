#pragma once
// A Response::websocket conversation (http.h) on a connection: the upgrade
// is accepted with the answer's subprotocol, its messages are sent as binary
// frames, and the WebSocket is closed; then `done` runs (whether or not all
// of it went through). HttpServer's sessions call it over TCP and TLS.

#include <cstddef>
#include <memory>
#include <utility>

#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>

#include "apiserver/http.h"

namespace berth::apiserver {

namespace websocket_detail {

template <class Stream, class Done>
void Send(const std::shared_ptr<boost::beast::websocket::stream<Stream&>>& ws,
          const std::shared_ptr<WebSocketAnswer>& answer, size_t next, Done done) {
  namespace websocket = boost::beast::websocket;
  if (next == answer->messages.size()) {
    ws->async_close(websocket::close_code::normal, [ws, done = std::move(done)](boost::beast::error_code) { done(); });
    return;
  }
  ws->async_write(boost::asio::buffer(answer->messages[next]),
                  [ws, answer, next, done = std::move(done)](boost::beast::error_code ec, size_t) mutable {
                    if (ec) return done();
                    Send(ws, answer, next + 1, std::move(done));
                  });
}

}  // namespace websocket_detail

// `upgrade`: the request that asked for the upgrade (its header is used).
template <class Stream, class Body, class Done>
void AnswerWebSocket(Stream& stream, const boost::beast::http::request<Body>& upgrade,
                     std::shared_ptr<WebSocketAnswer> answer, Done done) {
  namespace beast = boost::beast;
  namespace websocket = beast::websocket;
  beast::get_lowest_layer(stream).expires_never();  // the websocket's own timeouts take over
  auto ws = std::make_shared<websocket::stream<Stream&>>(stream);
  ws->set_option(websocket::stream_base::timeout::suggested(beast::role_type::server));
  ws->set_option(websocket::stream_base::decorator([protocol = answer->protocol](websocket::response_type& res) {
    res.set(beast::http::field::server, "berth");
    if (!protocol.empty()) res.set(beast::http::field::sec_websocket_protocol, protocol);
  }));
  ws->binary(true);
  ws->async_accept(upgrade, [ws, answer, done = std::move(done)](beast::error_code ec) mutable {
    if (ec) return done();
    websocket_detail::Send(ws, answer, 0, std::move(done));
  });
}

}  // namespace berth::apiserver
