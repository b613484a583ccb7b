// Go's strconv.ParseBool, as kube reads booleans written as text.

#include "api/go_bool.h"

#include <gtest/gtest.h>

namespace berth::api {
namespace {

TEST(ParseGoBool, ReadsGosSpellingsAndNothingElse) {
  for (std::string_view yes : {"1", "t", "T", "TRUE", "true", "True"}) EXPECT_EQ(ParseGoBool(yes), true) << yes;
  for (std::string_view no : {"0", "f", "F", "FALSE", "false", "False"}) EXPECT_EQ(ParseGoBool(no), false) << no;
  for (std::string_view neither : {"", "yes", "tRUE", "on", "2", " true"}) {
    EXPECT_EQ(ParseGoBool(neither), std::nullopt) << neither;
  }
}

}  // namespace
}  // namespace berth::api
