// Go's regular expressions through RE2: the syntax kube's patterns use, a
// search (not a whole-string match), and Go's error messages.

#include <gtest/gtest.h>

#include "api/validation/go_regexp.h"

namespace berth::api {
namespace {

bool Matches(std::string_view expression, std::string_view text) {
  auto re = GoRegexp::Compile(expression);
  EXPECT_TRUE(re.ok()) << expression << ": " << re.status().message();
  return re.ok() && re.value().Search(text);
}

std::string CompileError(std::string_view expression) {
  auto re = GoRegexp::Compile(expression);
  return re.ok() ? "" : re.status().message();
}

TEST(GoRegexp, SearchesWithGosSyntax) {
  EXPECT_TRUE(Matches("[0-9]", "v1beta"));  // unanchored, as Go's MatchString
  EXPECT_FALSE(Matches("^[a-z]+$", "Abc"));
  EXPECT_TRUE(Matches("(?i)^abc$", "ABC"));  // flags ECMAScript has not
  EXPECT_TRUE(Matches(R"(^\pL+$)", "h\u00e9llo"));
  EXPECT_TRUE(Matches(R"(^\d{3}-\w+\s?$)", "123-abc"));
}

TEST(GoRegexp, RefusesWhatGoRefusesWithGosMessage) {
  EXPECT_EQ(CompileError("[a-"), "error parsing regexp: missing closing ]: `[a-`");
  EXPECT_EQ(CompileError("(abc"), "error parsing regexp: missing closing ): `(abc`");
  EXPECT_EQ(CompileError("a**"), "error parsing regexp: invalid nested repetition operator: `**`");
  // Perl's lookahead and backreferences are not Go's.
  EXPECT_EQ(CompileError("a(?=b)"), "error parsing regexp: invalid or unsupported Perl syntax: `(?=`");
  EXPECT_EQ(CompileError(R"((a)\1)"), "error parsing regexp: invalid escape sequence: `\\1`");
}

}  // namespace
}  // namespace berth::api
