#include "api/storage_views.h"

#include "api/object.h"
#include "api/resources.h"

namespace berth::api {

namespace json = boost::json;

namespace {

Result<std::shared_ptr<const TypedView>> Done(const JsonReader& reader, std::shared_ptr<const TypedView> view) {
  if (!reader.ok()) return reader.status();
  return view;
}

// The storage amount in a resource map at parent[name].
int64_t ReadStorage(JsonReader& reader, const json::object& parent, std::string_view name, const FieldPath& at) {
  const json::value* v = reader.Member(parent, name);
  if (!v || !reader.ok()) return 0;
  auto list = ParseResourceList(*v, at.Field(name).ToString());
  if (!list.ok()) {
    reader.Fail(list.status());
    return 0;
  }
  return list.value().Get(kResourceStorage);
}

}  // namespace

Result<std::shared_ptr<const TypedView>> ParsePersistentVolumeView(const json::object& pv) {
  auto view = std::make_shared<PersistentVolumeView>();
  JsonReader reader;
  FieldPath root;
  if (const json::object* spec = reader.Object(pv, "spec", root)) {
    FieldPath s = root.Field("spec");
    view->capacity_bytes = ReadStorage(reader, *spec, "capacity", s);
    view->access_modes = reader.StringList(*spec, "accessModes", s);
    view->storage_class_name = reader.String(*spec, "storageClassName", s);
    view->volume_mode = reader.String(*spec, "volumeMode", s);
    if (view->volume_mode.empty()) view->volume_mode = "Filesystem";
    view->reclaim_policy = reader.String(*spec, "persistentVolumeReclaimPolicy", s);
    if (const json::object* ref = reader.Object(*spec, "claimRef", s)) {
      FieldPath r = s.Field("claimRef");
      view->claim_ref = ObjectReference{reader.String(*ref, "namespace", r), reader.String(*ref, "name", r),
                                        reader.String(*ref, "uid", r)};
    }
    if (const json::object* affinity = reader.Object(*spec, "nodeAffinity", s)) {
      FieldPath a = s.Field("nodeAffinity");
      if (const json::object* required = reader.Object(*affinity, "required", a)) {
        view->node_affinity = ReadNodeSelector(reader, *required, a.Field("required"));
      }
    }
  }
  if (const json::object* status = reader.Object(pv, "status", root)) {
    view->phase = reader.String(*status, "phase", root.Field("status"));
  }
  return Done(reader, std::move(view));
}

std::string ClaimClass(const Object& claim) {
  const auto* view = claim.As<PersistentVolumeClaimView>();
  return view ? view->class_name : std::string();
}

Result<std::shared_ptr<const TypedView>> ParsePersistentVolumeClaimView(const json::object& pvc) {
  auto view = std::make_shared<PersistentVolumeClaimView>();
  JsonReader reader;
  FieldPath root;
  if (const json::object* meta = reader.Object(pvc, "metadata", root)) {
    FieldPath m = root.Field("metadata");
    if (const json::object* annotations = reader.Object(*meta, "annotations", m)) {
      if (const json::value* v = reader.Member(*annotations, "volume.kubernetes.io/selected-node");
          v && v->is_string()) {
        view->selected_node = std::string(v->get_string());
      }
      if (const json::value* v = reader.Member(*annotations, "volume.beta.kubernetes.io/storage-class");
          v && v->is_string()) {
        view->class_name = std::string(v->get_string());
      }
    }
  }
  if (const json::object* spec = reader.Object(pvc, "spec", root)) {
    FieldPath s = root.Field("spec");
    view->access_modes = reader.StringList(*spec, "accessModes", s);
    if (const json::object* resources = reader.Object(*spec, "resources", s)) {
      view->requested_bytes = ReadStorage(reader, *resources, "requests", s.Field("resources"));
    }
    view->storage_class_name = reader.OptionalString(*spec, "storageClassName", s);
    if (view->class_name.empty() && view->storage_class_name) view->class_name = *view->storage_class_name;
    view->volume_name = reader.String(*spec, "volumeName", s);
    view->volume_mode = reader.String(*spec, "volumeMode", s);
    if (view->volume_mode.empty()) view->volume_mode = "Filesystem";
    if (const json::value* selector = reader.Member(*spec, "selector")) {
      auto parsed = LabelSelector::FromJson(*selector);
      view->selector = parsed.ok() ? std::move(parsed).value() : LabelSelector::Nothing();
    }
  }
  if (const json::object* status = reader.Object(pvc, "status", root)) {
    view->phase = reader.String(*status, "phase", root.Field("status"));
  }
  return Done(reader, std::move(view));
}

Result<std::shared_ptr<const TypedView>> ParseStorageClassView(const json::object& sc) {
  auto view = std::make_shared<StorageClassView>();
  JsonReader reader;
  FieldPath root;
  if (const json::object* meta = reader.Object(sc, "metadata", root)) {
    if (const json::object* annotations = reader.Object(*meta, "annotations", root.Field("metadata"))) {
      const json::value* v = reader.Member(*annotations, "storageclass.kubernetes.io/is-default-class");
      view->is_default = v && v->is_string() && v->get_string() == "true";
    }
  }
  view->provisioner = reader.String(sc, "provisioner", root);
  view->wait_for_first_consumer = reader.String(sc, "volumeBindingMode", root) == "WaitForFirstConsumer";
  view->reclaim_policy = reader.String(sc, "reclaimPolicy", root);
  if (view->reclaim_policy.empty()) view->reclaim_policy = "Delete";
  if (const json::array* topologies = reader.Array(sc, "allowedTopologies", root)) {
    FieldPath list = root.Field("allowedTopologies");
    for (size_t i = 0; i < topologies->size(); ++i) {
      FieldPath here = list.Index(static_cast<int>(i));
      const json::object* t = reader.ElementObject((*topologies)[i], here);
      if (!t) break;
      NodeSelectorTerm term;
      if (const json::array* exprs = reader.Array(*t, "matchLabelExpressions", here)) {
        FieldPath elist = here.Field("matchLabelExpressions");
        for (size_t j = 0; j < exprs->size(); ++j) {
          FieldPath ehere = elist.Index(static_cast<int>(j));
          const json::object* e = reader.ElementObject((*exprs)[j], ehere);
          if (!e) break;
          NodeSelectorRequirement req;
          req.key = reader.String(*e, "key", ehere);
          req.op = NodeSelectorRequirement::Op::kIn;
          req.operator_text = "In";
          req.values = reader.StringList(*e, "values", ehere);
          term.match_expressions.push_back(std::move(req));
        }
      }
      view->allowed_topologies.push_back(std::move(term));
    }
  }
  return Done(reader, std::move(view));
}

Result<std::shared_ptr<const TypedView>> ParsePriorityClassView(const json::object& pc) {
  auto view = std::make_shared<PriorityClassView>();
  JsonReader reader;
  FieldPath root;
  view->value = static_cast<int32_t>(reader.Int(pc, "value", root).value_or(0));
  view->global_default = reader.Bool(pc, "globalDefault", root);
  view->preemption_policy = reader.String(pc, "preemptionPolicy", root);
  if (view->preemption_policy.empty()) view->preemption_policy = "PreemptLowerPriority";
  return Done(reader, std::move(view));
}

}  // namespace berth::api
