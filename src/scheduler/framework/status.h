#pragma once
// The result of a plugin at an extension point, with kube-scheduler's codes
// (framework.Code). Success carries no allocation; reasons are the
// user-facing texts that end up in "0/N nodes are available: ..." messages.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace berth::scheduler {

enum class Code : unsigned char {
  kSuccess,
  kError,                         // unexpected; the pod is retried with backoff
  kUnschedulable,                 // may fit after preemption or a cluster change
  kUnschedulableAndUnresolvable,  // preemption would not help on this node
  kWait,                          // Permit: hold the pod
  kSkip,                          // PreFilter/PreScore: the plugin has nothing to do
  kPending,                       // PreEnqueue: wait for something (scheduling gates)
};

class PluginStatus {
 public:
  PluginStatus() = default;
  PluginStatus(Code code, std::string reason) : code_(code) { reasons_.push_back(std::move(reason)); }
  PluginStatus(Code code, std::vector<std::string> reasons) : code_(code), reasons_(std::move(reasons)) {}

  static PluginStatus Success() { return {}; }
  static PluginStatus Skip() { return PluginStatus(Code::kSkip); }
  static PluginStatus Error(std::string message) { return {Code::kError, std::move(message)}; }
  static PluginStatus Unschedulable(std::string reason) { return {Code::kUnschedulable, std::move(reason)}; }
  static PluginStatus Unresolvable(std::string reason) {
    return {Code::kUnschedulableAndUnresolvable, std::move(reason)};
  }

  Code code() const { return code_; }
  bool ok() const { return code_ == Code::kSuccess; }
  bool IsSkip() const { return code_ == Code::kSkip; }
  bool IsRejected() const {
    return code_ == Code::kUnschedulable || code_ == Code::kUnschedulableAndUnresolvable;
  }
  const std::vector<std::string>& reasons() const { return reasons_; }
  std::string Message() const;
  // The plugin that returned this status (set by the framework).
  const std::string& plugin() const { return plugin_; }
  PluginStatus& WithPlugin(std::string_view plugin) {
    plugin_ = plugin;
    return *this;
  }

 private:
  explicit PluginStatus(Code code) : code_(code) {}
  Code code_ = Code::kSuccess;
  std::vector<std::string> reasons_;
  std::string plugin_;
};

}  // namespace berth::scheduler
