#include "api/node_view.h"

namespace berth::api {

namespace json = boost::json;

const NodeCondition* NodeView::Condition(std::string_view type) const {
  for (const auto& c : conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

bool NodeView::Ready() const {
  const NodeCondition* ready = Condition("Ready");
  return ready && ready->status == "True";
}

Result<std::shared_ptr<const TypedView>> ParseNodeView(const json::object& node) {
  auto view = std::make_shared<NodeView>();
  JsonReader reader;
  FieldPath root;
  if (const json::object* spec = reader.Object(node, "spec", root)) {
    FieldPath s = root.Field("spec");
    view->taints = ReadTaints(reader, *spec, s);
    view->unschedulable = reader.Bool(*spec, "unschedulable", s);
  }
  if (const json::object* status = reader.Object(node, "status", root)) {
    FieldPath st = root.Field("status");
    bool has_allocatable = false;
    for (auto [name, list] : {std::pair<std::string_view, ResourceList*>{"capacity", &view->capacity},
                              {"allocatable", &view->allocatable}}) {
      const json::value* v = reader.Member(*status, name);
      if (!v || !reader.ok()) continue;
      auto parsed = ParseResourceList(*v, st.Field(name).ToString());
      if (!parsed.ok()) return parsed.status();
      *list = std::move(parsed).value();
      if (name == "allocatable") has_allocatable = true;
    }
    if (!has_allocatable) view->allocatable = view->capacity;
    if (const json::array* conditions = reader.Array(*status, "conditions", st)) {
      FieldPath list = st.Field("conditions");
      for (size_t i = 0; i < conditions->size(); ++i) {
        FieldPath here = list.Index(static_cast<int>(i));
        const json::object* c = reader.ElementObject((*conditions)[i], here);
        if (!c) break;
        NodeCondition cond;
        cond.type = reader.String(*c, "type", here);
        cond.status = reader.String(*c, "status", here);
        cond.reason = reader.String(*c, "reason", here);
        cond.last_heartbeat_time = reader.String(*c, "lastHeartbeatTime", here);
        view->conditions.push_back(std::move(cond));
      }
    }
    if (const json::array* images = reader.Array(*status, "images", st)) {
      FieldPath list = st.Field("images");
      for (size_t i = 0; i < images->size(); ++i) {
        FieldPath here = list.Index(static_cast<int>(i));
        const json::object* c = reader.ElementObject((*images)[i], here);
        if (!c) break;
        ContainerImage image;
        image.names = reader.StringList(*c, "names", here);
        image.size_bytes = reader.Int(*c, "sizeBytes", here).value_or(0);
        view->images.push_back(std::move(image));
      }
    }
  }
  if (!reader.ok()) return reader.status();
  return std::shared_ptr<const TypedView>(std::move(view));
}

}  // namespace berth::api
