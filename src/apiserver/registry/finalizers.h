#pragma once
// What holds an object back from deletion: metadata.finalizers, and for a
// Namespace also spec.finalizers ("kubernetes" until its contents are gone).

#include <boost/json/object.hpp>

namespace berth::apiserver {

// metadata.finalizers is not empty.
bool HasFinalizers(const boost::json::object& object);
// A namespace held by nothing but spec.finalizers' "kubernetes" (or by nothing).
bool OnlyKubernetesFinalizer(const boost::json::object& ns);
// A namespace held by no finalizer at all, in metadata or spec.
bool Finalized(const boost::json::object& ns);

}  // namespace berth::apiserver
