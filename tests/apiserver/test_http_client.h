#pragma once
// A blocking HTTP/1.1 client on one keep-alive connection, for tests of the
// HTTP server over real sockets on 127.0.0.1.

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <string>
#include <utility>

namespace berth::apiserver::testing {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

// Post blocks until the response arrives.
class Client {
 public:
  explicit Client(uint16_t port) : socket_(ioc_) {
    socket_.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
  }
  std::pair<int, std::string> Post(const std::string& target, const std::string& body) {
    http::request<http::string_body> req(http::verb::post, target, 11);
    req.set(http::field::host, "127.0.0.1");
    req.keep_alive(true);
    req.body() = body;
    req.prepare_payload();
    http::write(socket_, req);
    http::response<http::string_body> res;
    http::read(socket_, buffer_, res);
    return {res.result_int(), res.body()};
  }

 private:
  net::io_context ioc_;
  tcp::socket socket_;
  beast::flat_buffer buffer_;
};

}  // namespace berth::apiserver::testing
