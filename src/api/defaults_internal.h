#pragma once
// Internal to the defaults (defaults.cc, defaults_pod.cc): the Pod kind's
// own, the volume sources' that PersistentVolumes share, and the two edits
// both files make.

#include <string_view>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

namespace berth::api {

// kube's SetObjectDefaults_Pod: DefaultPodSpec on spec, then what kube
// defaults in pods alone (SetDefaults_Pod): with hostNetwork, each
// container port's hostPort from its containerPort.
void DefaultPod(boost::json::object& pod);

// The defaults of the volume sources `volume` holds (a pod's volume, or a
// PersistentVolume's spec): hostPath's type "", the secret, configMap,
// downwardAPI and projected modes 0644, field references' apiVersion v1, a
// service account token's hour, iscsi's, rbd's, azureDisk's and scaleIO's
// defaults, an ephemeral claim's volumeMode Filesystem.
void DefaultVolumeSource(boost::json::object& volume);

// Sets o[key] = value when the member is absent, null or its Go type's zero
// value ("" or 0): kube's defaults of fields that are not pointers.
void SetIfZero(boost::json::object& o, std::string_view key, boost::json::value value);

// Calls fn on each object item of the array member `key`, if there is one.
template <typename Fn>
void ForEachItem(boost::json::object& o, std::string_view key, Fn fn) {
  boost::json::value* v = o.if_contains(key);
  if (boost::json::array* items = v ? v->if_array() : nullptr) {
    for (boost::json::value& item : *items) {
      if (boost::json::object* object = item.if_object()) fn(*object);
    }
  }
}

}  // namespace berth::api
