#include <boost/json.hpp>

#include "apiserver/admission/plugins.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {

class AlwaysDeny final : public AdmissionPlugin {
 public:
  std::string_view Name() const override { return "AlwaysDeny"; }
  Status Admit(const AdmissionAttributes& a, json::object* object) override {
    return AdmissionForbidden(a, "admission control is denying all modifications");
  }
};

}  // namespace

std::unique_ptr<AdmissionPlugin> NewAlwaysDeny(const AdmissionPluginContext&) {
  return std::make_unique<AlwaysDeny>();
}

}  // namespace berth::apiserver
