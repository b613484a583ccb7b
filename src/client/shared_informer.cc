#include "client/shared_informer.h"

#include <boost/json.hpp>

#include "api/pod_view.h"

namespace berth::client {
namespace {

namespace json = boost::json;

std::vector<std::string> OwnerUids(const api::Object& object) {
  std::vector<std::string> out;
  auto meta = object.json().find("metadata");
  if (meta == object.json().end() || !meta->value().is_object()) return out;
  auto refs = meta->value().get_object().find("ownerReferences");
  if (refs == meta->value().get_object().end() || !refs->value().is_array()) return out;
  for (const auto& ref : refs->value().get_array()) {
    if (!ref.is_object()) continue;
    auto uid = ref.get_object().find("uid");
    if (uid != ref.get_object().end() && uid->value().is_string()) out.emplace_back(uid->value().get_string());
  }
  return out;
}

}  // namespace

std::string ObjectKey(std::string_view ns, std::string_view name) {
  if (ns.empty()) return std::string(name);
  std::string key;
  key.reserve(ns.size() + 1 + name.size());
  key.append(ns).append("/").append(name);
  return key;
}

std::string ObjectKey(const api::Object& object) { return ObjectKey(object.namespace_name(), object.name()); }

SharedInformer::SharedInformer(SourceFactory make_source, std::chrono::milliseconds resync_period)
    : make_source_(std::move(make_source)), resync_period_(resync_period) {
  index_funcs_[kNamespaceIndex] = [](const api::Object& o) { return std::vector<std::string>{o.namespace_name()}; };
  index_funcs_[kOwnerUidIndex] = OwnerUids;
  index_funcs_[kNodeNameIndex] = [](const api::Object& o) {
    std::vector<std::string> out;
    if (o.kind() == api::Kind::kPod) {
      const auto* pod = o.As<api::PodView>();
      if (pod && !pod->node_name.empty()) out.push_back(pod->node_name);
    }
    return out;
  };
}

SharedInformer::~SharedInformer() { Stop(); }

void SharedInformer::AddIndex(const std::string& name, IndexFunc index) { index_funcs_[name] = std::move(index); }

void SharedInformer::AddHandlers(InformerHandlers handlers) { handlers_.push_back(std::move(handlers)); }

Status SharedInformer::Start() {
  InformerHandlers mine{[this](const api::ObjectPtr& o) { OnAdd(o); },
                        [this](const api::ObjectPtr& o) { OnUpdate(o); },
                        [this](const api::ObjectPtr& o) { OnDelete(o); }};
  source_ = make_source_(std::move(mine));
  Status s = source_->Start();
  if (!s.ok()) return s;
  if (resync_period_.count() > 0) {
    resync_thread_ = std::thread([this] {
      std::unique_lock lock(resync_mu_);
      while (!resync_cv_.wait_for(lock, resync_period_, [this] { return stopping_; })) {
        lock.unlock();
        Resync();
        lock.lock();
      }
    });
  }
  return Status::Ok();
}

void SharedInformer::Stop() {
  {
    std::lock_guard lock(resync_mu_);
    stopping_ = true;
  }
  resync_cv_.notify_all();
  if (resync_thread_.joinable()) resync_thread_.join();
  if (source_) source_->Stop();
}

void SharedInformer::Unindex(const std::string& key, const api::Object& object) {
  for (const auto& [name, func] : index_funcs_) {
    auto& index = indexes_[name];
    for (const auto& value : func(object)) {
      auto it = index.find(value);
      if (it == index.end()) continue;
      it->second.erase(key);
      if (it->second.empty()) index.erase(it);
    }
  }
}

void SharedInformer::Store(const api::ObjectPtr& object) {
  std::string key = ObjectKey(*object);
  std::unique_lock lock(mu_);
  auto [it, inserted] = items_.try_emplace(key, object);
  if (!inserted) {
    Unindex(key, *it->second);
    it->second = object;
  }
  for (const auto& [name, func] : index_funcs_) {
    auto& index = indexes_[name];
    for (const auto& value : func(*object)) index[value].insert(key);
  }
}

void SharedInformer::OnAdd(const api::ObjectPtr& object) {
  Store(object);
  for (const auto& h : handlers_) {
    if (h.on_add) h.on_add(object);
  }
}

void SharedInformer::OnUpdate(const api::ObjectPtr& object) {
  Store(object);
  for (const auto& h : handlers_) {
    if (h.on_update) h.on_update(object);
  }
}

void SharedInformer::OnDelete(const api::ObjectPtr& object) {
  std::string key = ObjectKey(*object);
  {
    std::unique_lock lock(mu_);
    auto it = items_.find(key);
    if (it != items_.end()) {
      Unindex(key, *it->second);
      items_.erase(it);
    }
  }
  for (const auto& h : handlers_) {
    if (h.on_delete) h.on_delete(object);
  }
}

void SharedInformer::Resync() {
  for (const auto& object : List()) {
    for (const auto& h : handlers_) {
      if (h.on_update) h.on_update(object);
    }
  }
}

api::ObjectPtr SharedInformer::Get(const std::string& key) const {
  std::shared_lock lock(mu_);
  auto it = items_.find(key);
  return it == items_.end() ? nullptr : it->second;
}

std::vector<api::ObjectPtr> SharedInformer::List() const {
  std::shared_lock lock(mu_);
  std::vector<api::ObjectPtr> out;
  out.reserve(items_.size());
  for (const auto& [key, object] : items_) out.push_back(object);
  return out;
}

std::vector<api::ObjectPtr> SharedInformer::ByIndex(const std::string& index, const std::string& value) const {
  std::shared_lock lock(mu_);
  std::vector<api::ObjectPtr> out;
  auto i = indexes_.find(index);
  if (i == indexes_.end()) return out;
  auto v = i->second.find(value);
  if (v == i->second.end()) return out;
  out.reserve(v->second.size());
  for (const auto& key : v->second) out.push_back(items_.at(key));
  return out;
}

size_t SharedInformer::Size() const {
  std::shared_lock lock(mu_);
  return items_.size();
}

}  // namespace berth::client
