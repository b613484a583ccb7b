#pragma once
// Plugins by name, as users write them in the configuration. A factory gets
// the plugin's args (from pluginConfig; an empty object when none) and the
// handle, and returns the plugin or an error naming the bad argument.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <boost/json/object.hpp>

#include "api/status.h"
#include "scheduler/framework/interface.h"

namespace berth::scheduler {

using PluginFactory =
    std::function<Result<std::shared_ptr<Plugin>>(const boost::json::object& args, const Handle& handle)>;

class Registry {
 public:
  void Register(std::string name, PluginFactory factory) { factories_[std::move(name)] = std::move(factory); }
  const PluginFactory* Find(const std::string& name) const {
    auto it = factories_.find(name);
    return it == factories_.end() ? nullptr : &it->second;
  }
  std::vector<std::string> Names() const {
    std::vector<std::string> out;
    for (const auto& [name, factory] : factories_) out.push_back(name);
    return out;
  }

 private:
  std::map<std::string, PluginFactory> factories_;
};

// Every in-tree plugin (src/scheduler/plugins/).
Registry InTreeRegistry();

}  // namespace berth::scheduler
