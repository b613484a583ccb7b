#include <boost/json.hpp>

#include "apiserver/admission/plugins.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {

class AlwaysAdmit final : public AdmissionPlugin {
 public:
  std::string_view Name() const override { return "AlwaysAdmit"; }
};

}  // namespace

std::unique_ptr<AdmissionPlugin> NewAlwaysAdmit(const AdmissionPluginContext&) {
  return std::make_unique<AlwaysAdmit>();
}

}  // namespace berth::apiserver
