#include "scheduler/framework/status.h"

namespace berth::scheduler {

std::string PluginStatus::Message() const {
  std::string out;
  for (const auto& r : reasons_) {
    if (!out.empty()) out += ", ";
    out += r;
  }
  return out;
}

}  // namespace berth::scheduler
