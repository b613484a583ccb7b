// The Service allocators (apiserver/registry/service_alloc.h): the range
// flags, ClusterIPs and NodePorts of Services being created, with kube's errors.

#include "apiserver/registry/service_alloc.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <memory>
#include <string>

#include "api/object.h"
#include "store/memory/memory_store.h"

namespace berth::apiserver {
namespace {

namespace json = boost::json;

constexpr std::string_view kClusterRangeError =
    ": want an IPv4 CIDR with a prefix of 8 to 30 bits (e.g. 10.96.0.0/12)";
constexpr std::string_view kNodePortRangeError = ": want FIRST-LAST within 1-65535 (e.g. 30000-32767)";

TEST(ServiceRangesTest, ParsesTheDefaultRanges) {
  auto ranges = ParseServiceRanges("10.96.0.0/12", "30000-32767");
  ASSERT_TRUE(ranges.ok()) << ranges.status().message();
  EXPECT_EQ(ranges->ip_base, 0x0A600000u);
  EXPECT_EQ(ranges->prefix, 12);
  EXPECT_EQ(ranges->node_port_min, 30000);
  EXPECT_EQ(ranges->node_port_max, 32767);
  EXPECT_EQ(ranges->cidr, "10.96.0.0/12");
  EXPECT_EQ(ServiceAllocator(*ranges).FirstAddress(), "10.96.0.1");
}

TEST(ServiceRangesTest, TheFirstAddressIsTheNetworksFirstWhateverAddressTheFlagNames) {
  auto ranges = ParseServiceRanges("10.0.0.77/24", "1-65535");
  ASSERT_TRUE(ranges.ok()) << ranges.status().message();
  EXPECT_EQ(ranges->ip_base, 0x0A000000u);
  EXPECT_EQ(ranges->cidr, "10.0.0.77/24");
  EXPECT_EQ(ServiceAllocator(*ranges).FirstAddress(), "10.0.0.1");
  EXPECT_EQ(ranges->node_port_min, 1);
  EXPECT_EQ(ranges->node_port_max, 65535);

  EXPECT_EQ(ServiceAllocator(ParseServiceRanges("172.16.5.6/30", "30000-30000").value()).FirstAddress(),
            "172.16.5.5");
  EXPECT_EQ(ServiceAllocator(ParseServiceRanges("10.1.2.3/8", "30000-32767").value()).FirstAddress(), "10.0.0.1");
}

TEST(ServiceRangesTest, RefusesAClusterRangeThatIsNoIPv4CidrWithAPrefixOf8To30) {
  for (std::string_view cidr : {"10.96.0.0", "10.96.0.0/7", "10.96.0.0/31", "10.96.0.0/12x", "10.96.0/12",
                                "1.2.3.4.5/12", "256.0.0.0/8", "fd00::/108", ""}) {
    auto ranges = ParseServiceRanges(cidr, "30000-32767");
    ASSERT_FALSE(ranges.ok()) << cidr;
    EXPECT_EQ(ranges.status().code(), StatusCode::kBadRequest);
    EXPECT_EQ(ranges.status().message(), "--service-cluster-ip-range " + std::string(cidr) + std::string(kClusterRangeError));
  }
}

TEST(ServiceRangesTest, RefusesANodePortRangeThatIsNotFirstDashLast) {
  for (std::string_view ports : {"30000", "32767-30000", "0-100", "30000-70000", "30000-3276x", "30000x-32767", "-30000", ""}) {
    auto ranges = ParseServiceRanges("10.96.0.0/12", ports);
    ASSERT_FALSE(ranges.ok()) << ports;
    EXPECT_EQ(ranges.status().code(), StatusCode::kBadRequest);
    EXPECT_EQ(ranges.status().message(), "--service-node-port-range " + std::string(ports) + std::string(kNodePortRangeError));
  }
}

// Allocation from 10.0.0.0/29 (addresses .1 to .6) and NodePorts 30000-30002,
// against the Services in a store.
class ServiceAllocTest : public ::testing::Test {
 protected:
  void SetUp() override { store_ = store::MemoryStore::Open({}).value(); }

  // Stores a Service as if created before.
  void Stored(const std::string& ns, const std::string& name, std::string_view spec) {
    auto object = api::Object::FromJson(json::value{{"apiVersion", "v1"},
                                                    {"kind", "Service"},
                                                    {"metadata", {{"name", name}, {"namespace", ns}}},
                                                    {"spec", json::parse(spec)}});
    ASSERT_TRUE(object.ok()) << object.status().message();
    auto created = store_->Create(object.value());
    ASSERT_TRUE(created.ok()) << created.status().message();
  }
  // The Service `name` with `spec` as Allocate leaves it, or why it refused.
  Result<json::object> Allocate(const std::string& name, std::string_view spec) {
    json::object service{{"apiVersion", "v1"},
                         {"kind", "Service"},
                         {"metadata", {{"name", name}, {"namespace", "default"}}},
                         {"spec", json::parse(spec)}};
    auto guard = allocator_.Allocate(service, *store_);
    if (!guard.ok()) return guard.status();
    EXPECT_TRUE(guard->owns_lock());
    return service;
  }
  json::object AllocatedSpec(const std::string& name, std::string_view spec) {
    auto service = Allocate(name, spec);
    EXPECT_TRUE(service.ok()) << service.status().message();
    return service.ok() ? service->at("spec").as_object() : json::object();
  }
  std::string Refusal(const std::string& name, std::string_view spec) {
    auto service = Allocate(name, spec);
    EXPECT_FALSE(service.ok()) << json::serialize(service.ok() ? service.value() : json::object());
    if (service.ok()) return "";
    EXPECT_EQ(service.status().code(), StatusCode::kInvalid);
    EXPECT_EQ(service.status().HttpCode(), 422);
    return service.status().message();
  }

  std::unique_ptr<store::MemoryStore> store_;
  ServiceAllocator allocator_{ParseServiceRanges("10.0.0.0/29", "30000-30002").value()};
};

TEST_F(ServiceAllocTest, AssignsTheLowestFreeAddressOfAnyNamespaceAndFillsTheIpFamilyFields) {
  Stored("default", "kubernetes", R"({"clusterIP":"10.0.0.1","ports":[{"port":443}]})");
  Stored("other", "db", R"({"clusterIP":"10.0.0.3","ports":[{"port":5432}]})");
  json::object spec = AllocatedSpec("web", R"({"ports":[{"port":80}]})");
  EXPECT_EQ(spec.at("clusterIP"), "10.0.0.2");
  EXPECT_EQ(spec.at("clusterIPs"), json::parse(R"(["10.0.0.2"])"));
  EXPECT_EQ(spec.at("ipFamilies"), json::parse(R"(["IPv4"])"));
  EXPECT_EQ(spec.at("ipFamilyPolicy"), "SingleStack");
  // A ClusterIP Service gets no NodePort.
  EXPECT_EQ(spec.at("ports"), json::parse(R"([{"port":80}])"));

  Stored("default", "web", json::serialize(spec));
  spec = AllocatedSpec("web2", R"({"ports":[{"port":80}],"ipFamilyPolicy":"PreferDualStack"})");
  EXPECT_EQ(spec.at("clusterIP"), "10.0.0.4");
  EXPECT_EQ(spec.at("ipFamilyPolicy"), "PreferDualStack");
}

TEST_F(ServiceAllocTest, HonoursARequestedAddressInTheRange) {
  Stored("default", "kubernetes", R"({"clusterIP":"10.0.0.1"})");
  json::object spec = AllocatedSpec("web", R"({"clusterIP":"10.0.0.6"})");
  EXPECT_EQ(spec.at("clusterIP"), "10.0.0.6");
  EXPECT_EQ(spec.at("clusterIPs"), json::parse(R"(["10.0.0.6"])"));
}

TEST_F(ServiceAllocTest, RefusesARequestedAddressOutsideTheRangeOrTaken) {
  Stored("default", "kubernetes", R"({"clusterIP":"10.0.0.1"})");
  for (std::string ip : {"10.0.0.7", "10.0.0.0", "192.168.0.1", "not-an-ip"}) {
    EXPECT_EQ(Refusal("web", R"({"clusterIP":")" + ip + R"("})"),
              R"(Service "web" is invalid: spec.clusterIPs: Invalid value: []string{")" + ip +
                  R"("}: failed to allocate IP )" + ip +
                  ": provided IP is not in the valid range. The range of valid IPs is 10.0.0.0/29");
  }
  auto taken = Allocate("web", R"({"clusterIP":"10.0.0.1"})");
  ASSERT_FALSE(taken.ok());
  EXPECT_EQ(taken.status().message(),
            R"(Service "web" is invalid: spec.clusterIPs: Invalid value: []string{"10.0.0.1"}: )"
            "failed to allocate IP 10.0.0.1: provided IP is already allocated");
  ASSERT_EQ(taken.status().causes().size(), 1u);
  EXPECT_EQ(taken.status().causes()[0].type, "FieldValueInvalid");
  EXPECT_EQ(taken.status().causes()[0].field, "spec.clusterIPs");
}

TEST_F(ServiceAllocTest, ReportsAFullAddressRange) {
  for (int i = 1; i <= 6; ++i) {
    Stored("default", "s" + std::to_string(i), R"({"clusterIP":"10.0.0.)" + std::to_string(i) + R"("})");
  }
  EXPECT_EQ(Refusal("web", R"({"ports":[{"port":80}]})"),
            R"(Service "web" is invalid: spec.clusterIPs: Invalid value: []string{""}: )"
            "failed to allocate IP: range is full");
  // A headless Service needs no address.
  json::object headless = AllocatedSpec("headless", R"({"clusterIP":"None"})");
  EXPECT_EQ(headless.at("clusterIP"), "None");
  EXPECT_EQ(headless.at("clusterIPs"), json::parse(R"(["None"])"));
  EXPECT_FALSE(headless.contains("ipFamilies"));
  EXPECT_FALSE(headless.contains("ipFamilyPolicy"));
}

TEST_F(ServiceAllocTest, LeavesExternalNameServicesAlone) {
  constexpr std::string_view spec = R"({"type":"ExternalName","externalName":"example.com"})";
  EXPECT_EQ(AllocatedSpec("ext", spec), json::parse(spec).as_object());
}

TEST_F(ServiceAllocTest, GivesNodePortAndLoadBalancerPortsTheLowestFreeNodePort) {
  Stored("other", "a", R"({"type":"NodePort","clusterIP":"10.0.0.1","ports":[{"port":80,"nodePort":30000}]})");
  json::object spec =
      AllocatedSpec("web", R"({"type":"NodePort","ports":[{"port":80},{"port":443,"nodePort":30002}]})");
  EXPECT_EQ(spec.at("ports"), json::parse(R"([{"port":80,"nodePort":30001},{"port":443,"nodePort":30002}])"));
  spec = AllocatedSpec("lb", R"({"type":"LoadBalancer","ports":[{"port":80}]})");
  EXPECT_EQ(spec.at("ports"), json::parse(R"([{"port":80,"nodePort":30001}])"));
}

TEST_F(ServiceAllocTest, RefusesNodePortsOutsideTheRangeOrTaken) {
  Stored("default", "a", R"({"type":"NodePort","clusterIP":"10.0.0.1","ports":[{"port":80,"nodePort":30000}]})");
  EXPECT_EQ(Refusal("web", R"({"type":"NodePort","ports":[{"port":80,"nodePort":29999}]})"),
            R"(Service "web" is invalid: spec.ports[0].nodePort: Invalid value: 29999: )"
            "provided port is not in the valid range. The range of valid ports is 30000-30002");
  EXPECT_EQ(Refusal("web", R"({"type":"NodePort","ports":[{"port":80,"nodePort":30000}]})"),
            R"(Service "web" is invalid: spec.ports[0].nodePort: Invalid value: 30000: )"
            "provided port is already allocated");
  // Two ports of one Service cannot share a NodePort either.
  EXPECT_EQ(Refusal("web", R"({"type":"NodePort","ports":[{"port":80,"nodePort":30001},{"port":81,"nodePort":30001}]})"),
            R"(Service "web" is invalid: spec.ports[1].nodePort: Invalid value: 30001: )"
            "provided port is already allocated");

  auto both = Allocate("web", R"({"type":"NodePort","ports":[{"port":80,"nodePort":29999},{"port":81,"nodePort":30000}]})");
  ASSERT_FALSE(both.ok());
  EXPECT_EQ(both.status().message(),
            R"(Service "web" is invalid: [spec.ports[0].nodePort: Invalid value: 29999: )"
            "provided port is not in the valid range. The range of valid ports is 30000-30002, "
            "spec.ports[1].nodePort: Invalid value: 30000: provided port is already allocated]");
  ASSERT_EQ(both.status().causes().size(), 2u);
  EXPECT_EQ(both.status().causes()[1].field, "spec.ports[1].nodePort");
}

TEST_F(ServiceAllocTest, ReportsAFullNodePortRange) {
  Stored("default", "a", R"({"type":"NodePort","clusterIP":"10.0.0.1",
      "ports":[{"port":80,"nodePort":30000},{"port":81,"nodePort":30001},{"port":82,"nodePort":30002}]})");
  EXPECT_EQ(Refusal("web", R"({"type":"NodePort","ports":[{"port":80}]})"),
            R"(Service "web" is invalid: spec.ports[0].nodePort: Invalid value: "0": )"
            "failed to allocate a nodePort: range is full");
}

}  // namespace
}  // namespace berth::apiserver
