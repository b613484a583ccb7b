// CustomResourceDefinition status as kube's apiextensions-apiserver keeps it,
// through ApiServer::Handle over a memory store: names another definition of
// the group accepted first are refused (NamesAccepted and its five conflict
// reasons, Established NotAccepted, the kind not served) until that one is
// deleted; a definition being deleted is Terminating while its objects go
// and takes no new ones; the API approval of community groups.

#include <gtest/gtest.h>

#include <atomic>
#include <boost/json.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "api/json_fields.h"
#include "api_fixture.h"
#include "apiserver/crd/crd_controller.h"
#include "apiserver/crd/crd_names.h"

namespace berth::apiserver {
namespace {

namespace json = boost::json;
using std::chrono::seconds;

// The memory store, but Delete and Update of the keys under a prefix fail
// while armed: a store that cannot take the deletes kube's finalizer issues.
class FaultyStore final : public store::Store {
 public:
  explicit FaultyStore(store::Store& base) : base_(base) {}
  void Fail(std::string prefix) {
    std::lock_guard lock(mu_);
    failing_ = std::move(prefix);
  }

  Result<api::ObjectPtr> Create(api::ObjectPtr object) override {
    return base_.Create(std::move(object));
  }
  Result<api::ObjectPtr> Get(const std::string& key) override { return base_.Get(key); }
  Result<store::ListResult> List(const store::ListOptions& options) override {
    return base_.List(options);
  }
  Result<api::ObjectPtr> Update(api::ObjectPtr object, int64_t expected_revision) override {
    if (Failing(object->StorageKey())) return kFault;
    return base_.Update(std::move(object), expected_revision);
  }
  Result<api::ObjectPtr> Delete(const std::string& key, int64_t expected_revision) override {
    if (Failing(key)) return kFault;
    return base_.Delete(key, expected_revision);
  }
  Result<std::unique_ptr<store::Watch>> WatchFrom(const store::WatchOptions& options) override {
    return base_.WatchFrom(options);
  }
  int64_t CurrentRevision() override { return base_.CurrentRevision(); }
  std::vector<std::pair<std::string, int64_t>> CountByResource() override {
    return base_.CountByResource();
  }

  inline static const Status kFault = Status::Unavailable("the disk is on fire");

 private:
  bool Failing(const std::string& key) {
    std::lock_guard lock(mu_);
    return !failing_.empty() && key.starts_with(failing_);
  }
  store::Store& base_;
  std::mutex mu_;
  std::string failing_;  // guarded by mu_
};

class CrdStatusTest : public testing::ApiFixture {
 protected:
  void SetUp() override {
    store_ = std::move(store::MemoryStore::Open({})).value();
    faulty_ = std::make_unique<FaultyStore>(*store_);
    ApiServer::Options options;
  options.admission.disable = {"ServiceAccount"};  // no serviceaccount controller runs
    options.admission.disable = {"ServiceAccount"};  // no serviceaccount controller runs
    options.seed = 7;
    api_ = std::make_unique<ApiServer>(*faulty_, options);
    ASSERT_TRUE(api_->Bootstrap().ok());
  }
  void TearDown() override { api_.reset(); }  // its controller uses faulty_

  // A definition of `group` (v1, namespaced); `names` is spec.names.
  Response CreateCrd(const std::string& group, json::object names, json::object metadata = {}) {
    metadata["name"] = std::string(names["plural"].as_string()) + "." + group;
    json::object crd{
        {"apiVersion", "apiextensions.k8s.io/v1"},
        {"kind", "CustomResourceDefinition"},
        {"metadata", std::move(metadata)},
        {"spec",
         {{"group", group},
          {"scope", "Namespaced"},
          {"names", std::move(names)},
          {"versions", json::array{{{"name", "v1"},
                                    {"served", true},
                                    {"storage", true},
                                    {"schema",
                                     {{"openAPIV3Schema",
                                       {{"type", "object"},
                                        {"x-kubernetes-preserve-unknown-fields", true}}}}}}}}}}};
    return Call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                json::serialize(crd));
  }
  json::object Crd(const std::string& name) {
    Response r = Call("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/" + name);
    return r.status == 200 ? json::parse(r.body).as_object() : json::object{};
  }
  bool CrdGone(const std::string& name) {
    return Call("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/" + name).status ==
           404;
  }
  // "Status/Reason/message" of the definition's condition, "" when absent.
  std::string ConditionOf(const std::string& name, std::string_view type) {
    json::object crd = Crd(name);
    const json::value* status = crd.if_contains("status");
    const json::object* c =
        status && status->is_object() ? api::FindCondition(&status->get_object(), type) : nullptr;
    if (!c) return "";
    return std::string(c->at("status").as_string()) + "/" +
           std::string(c->at("reason").as_string()) + "/" +
           std::string(c->at("message").as_string());
  }
  // Polls (the controller acts on the store's watch) for up to 20 s.
  static bool Eventually(const std::function<bool()>& done) {
    for (auto until = std::chrono::steady_clock::now() + seconds(20);
         std::chrono::steady_clock::now() < until;) {
      if (done()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return done();
  }
  void WaitForCondition(const std::string& name, std::string_view type, const std::string& want) {
    EXPECT_TRUE(Eventually([&] { return ConditionOf(name, type) == want; }))
        << name << " " << type << ": " << ConditionOf(name, type) << ", want " << want;
  }
  Response CreateObject(const std::string& group, const std::string& plural,
                        const std::string& kind, const std::string& name,
                        const std::string& metadata_extra = "") {
    return Call("POST", "/apis/" + group + "/v1/namespaces/default/" + plural,
                R"({"apiVersion":")" + group + R"(/v1","kind":")" + kind +
                    R"(","metadata":{"name":")" + name + R"(")" + metadata_extra + "}}");
  }

  std::unique_ptr<FaultyStore> faulty_;
};

json::object FooNames() {
  return {{"plural", "foos"},
          {"singular", "foo"},
          {"shortNames", json::array{"fo"}},
          {"kind", "Foo"},
          {"listKind", "FooList"}};
}

TEST_F(CrdStatusTest, FirstDefinitionIsAcceptedAndEstablished) {
  ASSERT_EQ(CreateCrd("first.example.com", FooNames()).status, 201);
  WaitForCondition("foos.first.example.com", "NamesAccepted",
                   "True/NoConflicts/no conflicts found");
  WaitForCondition("foos.first.example.com", "Established",
                   "True/InitialNamesAccepted/the initial names have been accepted");
  json::object status = Crd("foos.first.example.com").at("status").as_object();
  EXPECT_EQ(status.at("acceptedNames"), json::value(FooNames())) << json::serialize(status);
  Response created = CreateObject("first.example.com", "foos", "Foo", "a");
  EXPECT_EQ(created.status, 201) << created.body;
}

// Every name a definition asks for is checked against what the group's
// others accepted; the last conflict names the condition, and the names
// without conflict are accepted.
TEST_F(CrdStatusTest, EachConflictOfNamesIsReportedAndTheKindIsNotServed) {
  struct Case {
    std::string reason;
    json::object names;
    std::string message;
    json::object accepted;
  };
  const Case cases[] = {
      {"PluralConflict",
       {{"plural", "foo"}, {"singular", "bar"}, {"kind", "Bar"}, {"listKind", "BarList"}},
       R"("foo" is already in use)",
       {{"plural", ""}, {"singular", "bar"}, {"kind", "Bar"}, {"listKind", "BarList"}}},
      {"SingularConflict",
       {{"plural", "bars"}, {"singular", "fo"}, {"kind", "Bar"}, {"listKind", "BarList"}},
       R"("fo" is already in use)",
       {{"plural", "bars"}, {"kind", "Bar"}, {"listKind", "BarList"}}},
      {"ShortNamesConflict",
       {{"plural", "bars"},
        {"singular", "bar"},
        {"shortNames", json::array{"foos", "b", "fo"}},
        {"kind", "Bar"},
        {"listKind", "BarList"}},
       R"(["foos" is already in use, "fo" is already in use])",
       {{"plural", "bars"}, {"singular", "bar"}, {"kind", "Bar"}, {"listKind", "BarList"}}},
      {"KindConflict",
       {{"plural", "bars"}, {"singular", "bar"}, {"kind", "Foo"}, {"listKind", "BarList"}},
       R"("Foo" is already in use)",
       {{"plural", "bars"}, {"singular", "bar"}, {"kind", ""}, {"listKind", "BarList"}}},
      {"ListKindConflict",
       {{"plural", "bars"}, {"singular", "bar"}, {"kind", "Bar"}, {"listKind", "FooList"}},
       R"("FooList" is already in use)",
       {{"plural", "bars"}, {"singular", "bar"}, {"kind", "Bar"}}},
  };
  int n = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.reason);
    const std::string group = "conflict" + std::to_string(n++) + ".example.com";
    ASSERT_EQ(CreateCrd(group, FooNames()).status, 201);
    WaitForCondition("foos." + group, "Established",
                     "True/InitialNamesAccepted/the initial names have been accepted");
    const std::string plural(c.names.at("plural").as_string());
    const std::string name = plural + "." + group;
    ASSERT_EQ(CreateCrd(group, c.names).status, 201);
    WaitForCondition(name, "NamesAccepted", "False/" + c.reason + "/" + c.message);
    WaitForCondition(name, "Established", "False/NotAccepted/not all names are accepted");
    EXPECT_EQ(Crd(name).at("status").at("acceptedNames"), json::value(c.accepted));
    // Not served: its objects are not found, the first definition's are.
    EXPECT_EQ(CreateObject(group, plural, std::string(c.names.at("kind").as_string()), "x").status,
              404);
    EXPECT_EQ(CreateObject(group, "foos", "Foo", "x").status, 201);
    // The first one is untouched.
    EXPECT_EQ(ConditionOf("foos." + group, "NamesAccepted"), "True/NoConflicts/no conflicts found");
  }
  // Names are per group: the same names elsewhere are accepted.
  ASSERT_EQ(
      CreateCrd("elsewhere.example.com", {{"plural", "bars"}, {"singular", "fo"}, {"kind", "Foo"}})
          .status,
      201);
  WaitForCondition("bars.elsewhere.example.com", "NamesAccepted",
                   "True/NoConflicts/no conflicts found");
}

TEST_F(CrdStatusTest, WaitingDefinitionIsAcceptedWhenTheConflictingOneIsDeleted) {
  const std::string group = "freed.example.com";
  ASSERT_EQ(CreateCrd(group, FooNames()).status, 201);
  WaitForCondition("foos." + group, "Established",
                   "True/InitialNamesAccepted/the initial names have been accepted");
  ASSERT_EQ(
      CreateCrd(group, {{"plural", "quxes"}, {"kind", "Foo"}, {"listKind", "QuxList"}}).status,
      201);
  WaitForCondition("quxes." + group, "NamesAccepted",
                   R"(False/KindConflict/"Foo" is already in use)");
  ASSERT_EQ(CreateObject(group, "quxes", "Foo", "early").status, 404);
  // What `berth store check` registers is what is served: the first one's kind.
  ASSERT_TRUE(crd::RegisterStoredKinds(*store_).ok());
  auto foo = api::KindFromApiVersion(group + "/v1", "Foo");
  ASSERT_TRUE(foo);
  EXPECT_EQ(api::Info(*foo).resource, "foos");

  ASSERT_EQ(Call("DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/foos." + group)
                .status,
            200);
  EXPECT_TRUE(Eventually([&] { return CrdGone("foos." + group); }));
  WaitForCondition("quxes." + group, "NamesAccepted", "True/NoConflicts/no conflicts found");
  WaitForCondition("quxes." + group, "Established",
                   "True/InitialNamesAccepted/the initial names have been accepted");
  EXPECT_EQ(Crd("quxes." + group).at("status").at("acceptedNames").at("kind"), "Foo");
  EXPECT_TRUE(
      Eventually([&] { return CreateObject(group, "quxes", "Foo", "late").status == 201; }));
}

// kube keeps an established definition served when a later change of its
// names conflicts: the names accepted before stay, NamesAccepted says why
// the new ones are not.
TEST_F(CrdStatusTest, EstablishedDefinitionKeepsItsAcceptedNamesWhenNewOnesConflict) {
  const std::string group = "sticky.example.com";
  ASSERT_EQ(CreateCrd(group, FooNames()).status, 201);
  ASSERT_EQ(CreateCrd(group, {{"plural", "bars"},
                              {"singular", "bar"},
                              {"shortNames", json::array{"b"}},
                              {"kind", "Bar"}})
                .status,
            201);
  WaitForCondition("bars." + group, "Established",
                   "True/InitialNamesAccepted/the initial names have been accepted");
  Response patched =
      Call("PATCH", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/bars." + group,
           R"({"spec":{"names":{"shortNames":["b","fo"]}}})", "application/merge-patch+json");
  ASSERT_EQ(patched.status, 200) << patched.body;
  WaitForCondition("bars." + group, "NamesAccepted",
                   R"(False/ShortNamesConflict/"fo" is already in use)");
  EXPECT_EQ(ConditionOf("bars." + group, "Established"),
            "True/InitialNamesAccepted/the initial names have been accepted");
  EXPECT_EQ(Crd("bars." + group).at("status").at("acceptedNames").at("shortNames"),
            json::array{"b"});
  EXPECT_EQ(CreateObject(group, "bars", "Bar", "still").status, 201);
}

TEST_F(CrdStatusTest, DeletedDefinitionIsTerminatingWhileItsObjectsGoAndRefusesNewOnes) {
  const std::string group = "ending.example.com";
  const std::string name = "foos." + group;
  ASSERT_EQ(CreateCrd(group, FooNames()).status, 201);
  WaitForCondition(name, "Established",
                   "True/InitialNamesAccepted/the initial names have been accepted");
  ASSERT_EQ(
      CreateObject(group, "foos", "Foo", "held", R"(,"finalizers":["example.com/hold"])").status,
      201);
  ASSERT_EQ(CreateObject(group, "foos", "Foo", "free").status, 201);

  ASSERT_EQ(
      Call("DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/" + name).status,
      200);
  WaitForCondition(name, "Terminating",
                   "True/InstanceDeletionInProgress/CustomResource deletion is in progress");
  const std::string objects = "/apis/" + group + "/v1/namespaces/default/foos/";
  EXPECT_TRUE(Eventually([&] { return Call("GET", objects + "free").status == 404; }));
  Response held = Call("GET", objects + "held");
  ASSERT_EQ(held.status, 200);
  EXPECT_TRUE(json::parse(held.body).at("metadata").as_object().contains("deletionTimestamp"))
      << held.body;

  // New objects are refused, by create and by an apply that would create.
  Response created = CreateObject(group, "foos", "Foo", "new");
  EXPECT_EQ(created.status, 403);
  json::object status = json::parse(created.body).as_object();
  EXPECT_EQ(status.at("reason"), "Forbidden");
  EXPECT_EQ(status.at("message"),
            "foos.ending.example.com \"new\" is forbidden: create not allowed while custom "
            "resource definition is "
            "terminating");
  Response applied =
      Call("PATCH", objects + "applied?fieldManager=test",
           R"({"apiVersion":"ending.example.com/v1","kind":"Foo","metadata":{"name":"applied"}})",
           "application/apply-patch+yaml");
  EXPECT_EQ(applied.status, 403) << applied.body;
  // The definition waits for its object, still Terminating.
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_EQ(ConditionOf(name, "Terminating"),
            "True/InstanceDeletionInProgress/CustomResource deletion is in progress");

  // Its objects stay writable: the finalizer's removal lets it go, then the definition.
  Response released = Call("PATCH", objects + "held", R"({"metadata":{"finalizers":null}})",
                           "application/merge-patch+json");
  ASSERT_EQ(released.status, 200) << released.body;
  EXPECT_TRUE(Eventually([&] { return CrdGone(name); }));
}

TEST_F(CrdStatusTest, FailedDeletesAreReportedAndRetried) {
  const std::string group = "stuck.example.com";
  const std::string name = "foos." + group;
  ASSERT_EQ(CreateCrd(group, FooNames()).status, 201);
  WaitForCondition(name, "Established",
                   "True/InitialNamesAccepted/the initial names have been accepted");
  ASSERT_EQ(CreateObject(group, "foos", "Foo", "a").status, 201);
  faulty_->Fail("/" + group + "/foos/");

  ASSERT_EQ(
      Call("DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/" + name).status,
      200);
  WaitForCondition(
      name, "Terminating",
      "True/InstanceDeletionFailed/could not issue all deletes: " + FaultyStore::kFault.message());
  faulty_->Fail("");
  EXPECT_TRUE(Eventually([&] { return CrdGone(name); }));
  EXPECT_EQ(Call("GET", "/apis/" + group + "/v1/namespaces/default/foos/a").status, 404);
}

// With another finalizer holding the definition, the outcome kube records
// when it removes its own stays readable.
TEST_F(CrdStatusTest, FinalizerRecordsTheOutcome) {
  const std::string group = "outcome.example.com";
  json::object hold{{"finalizers", json::array{"example.com/keep"}}};
  ASSERT_EQ(CreateCrd(group, FooNames(), hold).status, 201);
  WaitForCondition("foos." + group, "Established",
                   "True/InitialNamesAccepted/the initial names have been accepted");
  ASSERT_EQ(
      CreateCrd(group, {{"plural", "bars"}, {"kind", "Foo"}, {"listKind", "BarList"}}, hold).status,
      201);
  WaitForCondition("bars." + group, "NamesAccepted",
                   R"(False/KindConflict/"Foo" is already in use)");

  for (const char* crd : {"foos", "bars"}) {
    ASSERT_EQ(Call("DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/" +
                                 std::string(crd) + "." + group)
                  .status,
              200);
  }
  WaitForCondition("foos." + group, "Terminating",
                   "False/InstanceDeletionCompleted/removed all instances");
  WaitForCondition("bars." + group, "Terminating",
                   "False/NeverEstablished/resource was never established");
  for (const char* crd : {"foos", "bars"}) {
    EXPECT_EQ(Crd(std::string(crd) + "." + group).at("metadata").at("finalizers"),
              json::array{"example.com/keep"});
  }
}

TEST_F(CrdStatusTest, CommunityGroupsNeedTheApiApprovalAnnotation) {
  Response missing = CreateCrd("widgets.k8s.io", {{"plural", "gadgets"}, {"kind", "Gadget"}});
  EXPECT_EQ(missing.status, 422);
  EXPECT_EQ(json::parse(missing.body).at("message"),
            "CustomResourceDefinition.apiextensions.k8s.io \"gadgets.widgets.k8s.io\" is invalid: "
            "metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups "
            "must have approval "
            "annotation \"api-approved.kubernetes.io\", see "
            "https://github.com/kubernetes/enhancements/pull/1111");
  auto annotated = [](const std::string& value) {
    return json::object{{"annotations", {{"api-approved.kubernetes.io", value}}}};
  };
  Response invalid =
      CreateCrd("x.kubernetes.io", {{"plural", "gadgets"}, {"kind", "Gadget"}}, annotated("yes"));
  EXPECT_EQ(invalid.status, 422);
  EXPECT_NE(invalid.body.find(
                "metadata.annotations[api-approved.kubernetes.io]: Invalid value: \\\"yes\\\": "
                "protected groups must have approval annotation \\\"api-approved.kubernetes.io\\\" "
                "with either a URL or a reason starting with \\\"unapproved\\\""),
            std::string::npos)
      << invalid.body;
  EXPECT_EQ(CreateCrd("widgets.k8s.io", {{"plural", "gadgets"}, {"kind", "Gadget"}},
                      annotated("https://github.com/kubernetes/enhancements/pull/1111"))
                .status,
            201);
  EXPECT_EQ(CreateCrd("k8s.io", {{"plural", "gadgets"}, {"kind", "Gadget"}},
                      annotated("unapproved, testing only"))
                .status,
            201);
  // Other groups need nothing.
  EXPECT_EQ(CreateCrd("k8s.io.example.com", {{"plural", "gadgets"}, {"kind", "Gadget"}}).status,
            201);
}

// A controller of its own over a store, with a short timeout: objects held
// past it are reported as kube's finalizer reports them after its minute.
TEST(CrdFinalizerTest, ObjectsLeftAfterTheTimeoutAreReportedAndWaitedForAgain) {
  auto store = std::move(store::MemoryStore::Open({})).value();
  ResourceRegistry registry;
  crd::CrdController controller(*store, registry, nullptr, std::chrono::seconds(1));
  ASSERT_TRUE(controller.Start().ok());
  auto crd = api::Object::FromJson(json::parse(R"({
      "apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
      "metadata":{"name":"foos.check.example.com","finalizers":["customresourcecleanup.apiextensions.k8s.io"]},
      "spec":{"group":"check.example.com","scope":"Cluster",
              "names":{"plural":"foos","singular":"foo","kind":"Foo","listKind":"FooList"},
              "versions":[{"name":"v1","served":true,"storage":true,
                           "schema":{"openAPIV3Schema":{"type":"object"}}}]}})"));
  ASSERT_TRUE(crd.ok()) << crd.status().ToString();
  auto created = store->Create(crd.value());
  ASSERT_TRUE(created.ok());
  controller.Sync(created.value());
  auto object = api::Object::FromJson(json::parse(
      R"({"apiVersion":"check.example.com/v1","kind":"Foo",
          "metadata":{"name":"held","finalizers":["example.com/hold"]}})"));
  ASSERT_TRUE(object.ok()) << object.status().ToString();
  ASSERT_TRUE(store->Create(object.value()).ok());

  // Every version of the definition from here on, through a watch.
  store::WatchOptions options;
  options.prefix = crd.value()->StorageKey();
  options.resource_version = store->CurrentRevision();
  auto watch = std::move(store->WatchFrom(options)).value();
  auto current = store->Get(crd.value()->StorageKey()).value();
  auto deleting = current->Edit([](json::object& o) {
    o["metadata"].as_object()["deletionTimestamp"] = "2024-01-01T00:00:00Z";
  });
  ASSERT_TRUE(store->Update(deleting.value(), current->resource_version()).ok());
  std::vector<std::string> reasons;  // of Terminating, as it changes
  for (auto until = std::chrono::steady_clock::now() + seconds(30);
       std::chrono::steady_clock::now() < until && reasons.size() < 3;) {
    for (const auto& e : watch->Next(std::chrono::steady_clock::now() + seconds(1))) {
      const json::object* c = api::FindCondition(api::StatusOf(*e.object), "Terminating");
      std::string reason = c ? std::string(api::StringAt(c, "reason")) : "";
      // The first three changes (a slow reader may get more in one batch).
      if (reasons.size() < 3 && !reason.empty() && (reasons.empty() || reasons.back() != reason)) {
        reasons.push_back(reason);
        if (reason == "InstanceDeletionCheck") {
          EXPECT_EQ(api::StringAt(c, "message"),
                    "could not confirm zero CustomResources remaining: context deadline exceeded");
        }
      }
    }
  }
  EXPECT_EQ(reasons,
            (std::vector<std::string>{"InstanceDeletionInProgress", "InstanceDeletionCheck",
                                      "InstanceDeletionInProgress"}));
  // The object is marked, not gone; the definition waits for it.
  auto held = store->Get(object.value()->StorageKey());
  ASSERT_TRUE(held.ok());
  EXPECT_TRUE(api::BeingDeleted(*held.value()));
  EXPECT_TRUE(store->Get(crd.value()->StorageKey()).ok());
}

// The naming decision alone (kube's calculateNamesAndConditions).
TEST(CrdNamesTest, NameAlreadyAcceptedStaysAcceptedAndFreshNamesAreChecked) {
  using crd::Names;
  crd::GroupNames taken;
  taken.Add({.plural = "foos",
             .singular = "foo",
             .kind = "Foo",
             .list_kind = "FooList",
             .short_names = {"f"}});
  Names mine{.plural = "bars",
             .singular = "bar",
             .kind = "Bar",
             .list_kind = "BarList",
             .short_names = {"f"}};
  taken.Add(mine);
  // "f" is held by both (as after a rename): it stays this one's.
  Names requested = mine;
  requested.short_names = {"f", "g"};
  crd::NamingDecision d = crd::DecideNames(requested, mine, nullptr, taken);
  EXPECT_EQ(d.names_accepted.status, "True");
  EXPECT_EQ(d.accepted.short_names, (std::vector<std::string>{"f", "g"}));
  EXPECT_EQ(d.established.reason, "Installing");
  // A fresh request for names held: the last conflict names the condition,
  // the rest is accepted.
  d = crd::DecideNames(
      {.plural = "foo", .singular = "quux", .kind = "FooList", .list_kind = "QuuxList"}, {},
      nullptr, taken);
  EXPECT_EQ(d.names_accepted.reason, "KindConflict");
  EXPECT_EQ(d.names_accepted.message, R"("FooList" is already in use)");
  EXPECT_EQ(d.accepted,
            (Names{.plural = "", .singular = "quux", .kind = "", .list_kind = "QuuxList"}));
  EXPECT_EQ(d.established.reason, "NotAccepted");
}

TEST(CrdNamesTest, AggregateMessageAsKubePrintsIt) {
  EXPECT_EQ(crd::AggregateMessage({"a"}), "a");
  EXPECT_EQ(crd::AggregateMessage({"a", "b", "a"}), "[a, b]");
  EXPECT_EQ(crd::AggregateMessage({"a", "a"}), "a");
}

}  // namespace
}  // namespace berth::apiserver
