// Lazily edited objects read by racing threads (run under ThreadSanitizer in CI).

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include <boost/json.hpp>

#include "api/object.h"
#include "api/pod_view.h"

namespace berth::api {
namespace {

namespace json = boost::json;

// Threads race to be the first reader of each bound version, through json(),
// Encoded() and FieldValue(): the edit runs once per object and every reader
// sees its result.
TEST(ObjectStress, RacingFirstReadsOfLazilyEditedObjects) {
  constexpr int kObjects = 300, kThreads = 6;
  std::vector<ObjectPtr> bound;
  std::vector<std::atomic<int>> edits(kObjects);
  for (int i = 0; i < kObjects; ++i) {
    auto pod = Object::Decode(
        R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p)" + std::to_string(i) +
        R"(","namespace":"default"},"spec":{"containers":[{"name":"c","image":"i"}]}})");
    ASSERT_TRUE(pod.ok());
    auto view = std::make_shared<PodView>(*pod.value()->As<PodView>());
    std::string node = "n" + std::to_string(i);
    view->node_name = node;
    bound.push_back(Object::EditLazily(
                        pod.value(),
                        [node, count = &edits[i]](json::object& p) {
                          count->fetch_add(1);
                          p["spec"].get_object()["nodeName"] = node;
                        },
                        std::move(view))
                        ->WithResourceVersion(i + 1));
  }
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kObjects; ++i) {
        int k = (t % 2 == 0) ? i : kObjects - 1 - i;
        const std::string node = "n" + std::to_string(k);
        bool ok = true;
        switch ((t + k) % 3) {
          case 0:
            ok = bound[k]->FieldValue("spec.nodeName") == node;
            break;
          case 1:
            ok =
                bound[k]->Encoded().find("\"nodeName\":\"" + node + "\"") != std::string_view::npos;
            break;
          default:
            ok = bound[k]->json().at("spec").at("nodeName") == json::string_view(node);
            break;
        }
        if (!ok) wrong.fetch_add(1);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
  for (int k = 0; k < kObjects; ++k) ASSERT_EQ(edits[k].load(), 1) << k;
}

}  // namespace
}  // namespace berth::api
