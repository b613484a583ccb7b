#pragma once
// Regular expressions as Go's regexp package reads them (RE2 syntax: `(?i)`,
// `\pL`, no backreferences or lookaround), which kube's validation compiles
// (a CRD schema's `pattern`). Matching is a search, as Go's MatchString.

#include <memory>
#include <string>
#include <string_view>

#include "api/status.h"

namespace re2 {
class RE2;
}

namespace berth::api {

class GoRegexp {
 public:
  // The compiled expression, or BadRequest with Go's message:
  // "error parsing regexp: missing closing ]: `[a-`".
  static Result<GoRegexp> Compile(std::string_view expression);
  GoRegexp(GoRegexp&&) noexcept;
  GoRegexp& operator=(GoRegexp&&) noexcept;
  ~GoRegexp();

  // Whether `text` contains a match (Go's MatchString).
  bool Search(std::string_view text) const;

 private:
  explicit GoRegexp(std::unique_ptr<re2::RE2> re);
  std::unique_ptr<re2::RE2> re_;
};

}  // namespace berth::api
