#pragma once
// Plugins by name, as users write them in the configuration. A factory gets
// the plugin's args (from pluginConfig; an empty object when none) and the
// handle, and returns the plugin or an error naming the bad argument.

#include <functional>
#include <memory>

#include <boost/json/object.hpp>

#include "api/named_registry.h"
#include "api/status.h"
#include "scheduler/framework/interface.h"

namespace berth::scheduler {

using PluginFactory =
    std::function<Result<std::shared_ptr<Plugin>>(const boost::json::object& args, const Handle& handle)>;

// The one registration style (api/named_registry.h), by kube's plugin names.
using Registry = NamedRegistry<PluginFactory>;

// Every in-tree plugin (src/scheduler/plugins/).
Registry InTreeRegistry();

}  // namespace berth::scheduler
