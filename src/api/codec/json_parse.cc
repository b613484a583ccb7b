#include "api/codec/json_parse.h"

#include <boost/json/parse.hpp>

namespace berth::api {

namespace {

boost::json::parse_options Options() {
  boost::json::parse_options options;
  options.max_depth = kMaxJsonDepth;
  return options;
}

}  // namespace

boost::json::value ParseJson(std::string_view text, boost::system::error_code& ec) {
  static const boost::json::parse_options options = Options();
  return boost::json::parse(text, ec, {}, options);
}

boost::json::value ParseJson(std::string_view text) {
  static const boost::json::parse_options options = Options();
  return boost::json::parse(text, {}, options);
}

}  // namespace berth::api
