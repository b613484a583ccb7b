// Label and field selectors: Kubernetes' syntax and matching rules.

#include "api/selector.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "api/object.h"

namespace berth::api {
namespace {

TEST(LabelSelector, MatchesEveryOperator) {
  const Labels labels{{"app", "web"}, {"tier", "front"}, {"version", "7"}};
  const std::pair<std::string, bool> cases[] = {
      {"", true},
      {"app=web", true},
      {"app==web", true},
      {"app=db", false},
      {"app!=db", true},
      {"missing!=x", true},
      {"app in (web,db)", true},
      {"app in (db)", false},
      {"app notin (db)", true},
      {"app notin (web)", false},
      {"missing notin (x)", true},
      {"app", true},
      {"missing", false},
      {"!missing", true},
      {"!app", false},
      {"version>5", true},
      {"version<5", false},
      {"app=web,tier=front", true},
      {"app=web,tier=back", false},
      {"  app = web ,  tier in ( front , back ) ", true},
      {"missing=", false},
  };
  for (const auto& [text, want] : cases) {
    auto s = LabelSelector::Parse(text);
    ASSERT_TRUE(s.ok()) << text << ": " << s.status().message();
    EXPECT_EQ(s->Matches(labels), want) << text;
  }
  EXPECT_TRUE(LabelSelector::Parse("tier=").value().Matches(Labels{{"tier", ""}}));
}

TEST(LabelSelector, RejectsMalformedSelectors) {
  for (const char* bad : {"app in web", "app in (web", "=web", "app=web,", "app>x",
                          "bad key!=x", "app=has space", "a@b=c"}) {
    auto s = LabelSelector::Parse(bad);
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_EQ(s.status().code(), StatusCode::kBadRequest) << bad;
  }
}

// kube's parser reads "()" as the set holding the empty value (parseValues),
// so "x notin ()" is valid and is what "x notin (,,)" prints as.
TEST(LabelSelector, EmptyParenthesesAreTheEmptyValue) {
  for (const char* text : {"app notin ()", "app notin (,,)"}) {
    auto s = LabelSelector::Parse(text);
    ASSERT_TRUE(s.ok()) << text << ": " << s.status().message();
    EXPECT_EQ(s->ToString(), "app notin ()") << text;
    EXPECT_TRUE(s->Matches(Labels{{"app", "web"}})) << text;
    EXPECT_FALSE(s->Matches(Labels{{"app", ""}})) << text;
  }
  EXPECT_TRUE(LabelSelector::Parse("app in ()").value().Matches(Labels{{"app", ""}}));
}

TEST(LabelSelector, CanonicalStringSortsByKey) {
  EXPECT_EQ(LabelSelector::Parse("z=1,a in (y,x),!m,k").value().ToString(), "a in (x,y),k,!m,z=1");
}

TEST(LabelSelector, StructuredFormAndNilVersusEmpty) {
  auto s = LabelSelector::FromJson(boost::json::parse(
      R"({"matchLabels":{"app":"web"},"matchExpressions":[{"key":"tier","operator":"In","values":["front","back"]},{"key":"canary","operator":"DoesNotExist"}]})"));
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_TRUE(s->Matches(Labels{{"app", "web"}, {"tier", "back"}}));
  EXPECT_FALSE(s->Matches(Labels{{"app", "web"}, {"tier", "back"}, {"canary", "1"}}));
  EXPECT_EQ(s->ToString(), "app=web,!canary,tier in (back,front)");
  EXPECT_FALSE(LabelSelector::FromJson(boost::json::value(nullptr)).value().Matches(Labels{}));
  EXPECT_TRUE(LabelSelector::FromJson(boost::json::parse("{}")).value().Matches(Labels{{"x", "y"}}));

  auto bad_op = LabelSelector::FromJson(boost::json::parse(R"({"matchExpressions":[{"key":"a","operator":"Like"}]})"));
  EXPECT_NE(bad_op.status().message().find("matchExpressions[0].operator"), std::string::npos);
  auto no_values = LabelSelector::FromJson(boost::json::parse(R"({"matchExpressions":[{"key":"a","operator":"In","values":[]}]})"));
  EXPECT_NE(no_values.status().message().find("matchExpressions[0].values"), std::string::npos);
  auto values_for_exists = LabelSelector::FromJson(boost::json::parse(R"({"matchExpressions":[{"key":"a","operator":"Exists","values":["x"]}]})"));
  EXPECT_FALSE(values_for_exists.ok());
}

ObjectPtr Pod(const std::string& node, const std::string& phase) {
  return Object::Decode(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ns"},"spec":{"nodeName":")" +
                        node + R"(","containers":[]},"status":{"phase":")" + phase + R"("}})")
      .value();
}

TEST(FieldSelector, MatchesPodFields) {
  auto pod = Pod("n1", "Running");
  const std::pair<std::string, bool> cases[] = {
      {"spec.nodeName=n1", true},
      {"spec.nodeName==n1", true},
      {"spec.nodeName!=n1", false},
      {"spec.nodeName=", false},
      {"metadata.name=p,metadata.namespace=ns", true},
      {"status.phase!=Succeeded,status.phase!=Failed", true},
      {"status.phase=Pending", false},
  };
  for (const auto& [text, want] : cases) {
    auto s = FieldSelector::Parse(text);
    ASSERT_TRUE(s.ok()) << text;
    EXPECT_EQ(s->Matches(*pod), want) << text;
  }
  EXPECT_TRUE(FieldSelector::Parse("spec.nodeName=").value().Matches(*Pod("", "Pending")));
}

TEST(FieldSelector, EscapesAndErrors) {
  auto s = FieldSelector::Parse(R"(metadata.name=a\,b\=c)");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->requirements()[0].value, "a,b=c");
  EXPECT_EQ(s->ToString(), R"(metadata.name=a\,b\=c)");
  EXPECT_FALSE(FieldSelector::Parse("nonsense").ok());
  EXPECT_EQ(FieldSelector::Parse("spec.bogus=x").value().CheckSupported(Kind::kPod).message(),
            "field label not supported: spec.bogus");
  EXPECT_TRUE(FieldSelector::Parse("spec.unschedulable=true").value().CheckSupported(Kind::kNode).ok());
  EXPECT_FALSE(FieldSelector::Parse("spec.nodeName=x").value().CheckSupported(Kind::kNode).ok());
}

// Found by fuzz_field_selector: a backslash in the field part was taken for
// an escape, so ToString's text parsed to another selector. kube's parser
// splits at the first operator, unescapes only the value, and refuses in it
// what its EscapeValue would have escaped.
TEST(FieldSelector, ParsesAsKubeAndRoundTrips) {
  auto s = FieldSelector::Parse(R"(a\=b\=c)");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->requirements()[0].field, R"(a\)");
  EXPECT_EQ(s->requirements()[0].value, "b=c");
  EXPECT_EQ(s->ToString(), R"(a\=b\=c)");
  auto again = FieldSelector::Parse(FieldSelector::Parse(R"(x\ \=y\\\,z)").value().ToString());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->requirements()[0].field, R"(x\ \)");
  EXPECT_EQ(again->requirements()[0].value, R"(y\,z)");

  EXPECT_EQ(FieldSelector::Parse(R"(a\=b=c)").status().message(),
            "invalid field selector: unescaped character in value: 61");
  EXPECT_EQ(FieldSelector::Parse("a=b=c").status().message(),
            "invalid field selector: unescaped character in value: 61");
  EXPECT_EQ(FieldSelector::Parse(R"(a=b\x)").status().message(),
            R"(invalid field selector: invalid escape sequence: \x)");
  EXPECT_EQ(FieldSelector::Parse(R"(a=b\)").status().message(),
            R"(invalid field selector: invalid escape sequence: \)");
  // A field of spaces only is trimmed to nothing: refused as "=x" is.
  EXPECT_EQ(FieldSelector::Parse("  =x").status().message(), "invalid selector: '  =x'; can't understand '  =x'");
}

}  // namespace
}  // namespace berth::api
