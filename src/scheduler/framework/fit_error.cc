#include "scheduler/framework/fit_error.h"

#include <algorithm>
#include <map>
#include <vector>

namespace berth::scheduler {

std::string FitErrorMessage(size_t num_nodes, const PluginStatus* pre_filter, std::span<const NodeStatus> rejected,
                            const PluginStatus* absent, std::string_view post_filter,
                            std::span<const ReasonCount> counted) {
  std::string message = "0/" + std::to_string(num_nodes) + " nodes are available:";
  if (pre_filter) {
    message += " " + pre_filter->Message() + ".";
  } else {
    std::map<std::string, size_t> histogram;
    for (const auto& r : rejected) {
      for (const auto& reason : r.status.reasons()) histogram[reason]++;
    }
    size_t accounted = rejected.size();
    for (const auto& c : counted) {
      if (c.count == 0) continue;
      histogram[std::string(c.reason)] += c.count;
      accounted += c.count;
    }
    if (absent && accounted < num_nodes) {
      for (const auto& reason : absent->reasons()) histogram[reason] += num_nodes - accounted;
    }
    std::vector<std::string> parts;
    for (const auto& [reason, count] : histogram) parts.push_back(std::to_string(count) + " " + reason);
    std::sort(parts.begin(), parts.end());
    std::string joined;
    for (const auto& p : parts) joined += (joined.empty() ? "" : ", ") + p;
    if (!joined.empty()) message += " " + joined + ".";
  }
  if (!post_filter.empty()) message += " " + std::string(post_filter) + ".";
  return message;
}

}  // namespace berth::scheduler
