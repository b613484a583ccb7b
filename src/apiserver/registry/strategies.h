#pragma once
// The built-in kinds whose strategies have rules of their own (kube's
// per-resource registries): pods (initial status, graceful deletion; the
// binding, eviction, log and kubelet subresources), namespaces (finalizer,
// draining delete; the finalize subresource), Services (addresses and node
// ports), PriorityClasses (system classes stay), ServiceAccounts (the token
// subresource).

#include <functional>
#include <string>
#include <string_view>

#include "apiserver/registry/registry.h"
#include "apiserver/registry/service_alloc.h"
#include "store/store.h"

namespace berth::apiserver {

class ServiceAccountTokens;

struct StrategyContext {
  store::Store& store;
  ServiceAllocator& services;
  // serviceaccounts/token's issuer; may be null (none issued).
  const ServiceAccountTokens* tokens = nullptr;
};

// Sets those strategies in `registry`. REQUIRES: `context`'s members outlive it.
void RegisterBuiltinStrategies(ResourceRegistry& registry, const StrategyContext& context);

}  // namespace berth::apiserver
