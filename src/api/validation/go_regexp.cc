#include "api/validation/go_regexp.h"

#include <re2/re2.h>

namespace berth::api {

namespace {

// Go's regexp/syntax ErrorCode text for RE2's code (RE2 is Go's model: the
// same failures, named alike).
std::string_view GoErrorText(RE2::ErrorCode code) {
  switch (code) {
    case RE2::ErrorBadEscape: return "invalid escape sequence";
    case RE2::ErrorBadCharClass: return "invalid character class";
    case RE2::ErrorBadCharRange: return "invalid character class range";
    case RE2::ErrorMissingBracket: return "missing closing ]";
    case RE2::ErrorMissingParen: return "missing closing )";
    case RE2::ErrorUnexpectedParen: return "unexpected )";
    case RE2::ErrorTrailingBackslash: return "trailing backslash at end of expression";
    case RE2::ErrorRepeatArgument: return "missing argument to repetition operator";
    case RE2::ErrorRepeatSize: return "invalid repeat count";
    case RE2::ErrorRepeatOp: return "invalid nested repetition operator";
    case RE2::ErrorBadPerlOp: return "invalid or unsupported Perl syntax";
    case RE2::ErrorBadUTF8: return "invalid UTF-8";
    case RE2::ErrorBadNamedCapture: return "invalid named capture";
    case RE2::ErrorPatternTooLarge: return "expression too large";
    default: return "regexp/syntax: internal error";
  }
}

}  // namespace

GoRegexp::GoRegexp(std::unique_ptr<re2::RE2> re) : re_(std::move(re)) {}
GoRegexp::GoRegexp(GoRegexp&&) noexcept = default;
GoRegexp& GoRegexp::operator=(GoRegexp&&) noexcept = default;
GoRegexp::~GoRegexp() = default;

Result<GoRegexp> GoRegexp::Compile(std::string_view expression) {
  RE2::Options options;  // UTF-8, Perl classes and \b, as Go's syntax.Perl
  options.set_log_errors(false);
  auto re = std::make_unique<re2::RE2>(re2::StringPiece(expression.data(), expression.size()), options);
  if (!re->ok()) {
    return Status::BadRequest("error parsing regexp: " + std::string(GoErrorText(re->error_code())) + ": `" +
                              re->error_arg() + "`");
  }
  return GoRegexp(std::move(re));
}

bool GoRegexp::Search(std::string_view text) const {
  return RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *re_);
}

}  // namespace berth::api
