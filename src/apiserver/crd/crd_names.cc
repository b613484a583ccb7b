#include "apiserver/crd/crd_names.h"

#include <algorithm>
#include <boost/json.hpp>
#include <cctype>

#include "api/json_fields.h"

namespace berth::apiserver::crd {

namespace json = boost::json;

namespace {

std::vector<std::string> Strings(const json::array* a) {
  std::vector<std::string> out;
  if (!a) return out;
  for (const auto& v : *a) {
    if (v.is_string()) out.emplace_back(v.get_string());
  }
  return out;
}

json::array ToArray(const std::vector<std::string>& strings) {
  json::array out;
  for (const auto& s : strings) out.emplace_back(json::string(s));
  return out;
}

// kube's equalToAcceptedOrFresh: the requested name is the one accepted
// already, or no definition of the group holds it. The error message when not.
std::optional<std::string> InUse(const std::string& requested, const std::string& accepted,
                                 bool taken) {
  if (requested == accepted || !taken) return std::nullopt;
  return "\"" + requested + "\" is already in use";
}

api::Condition ConditionIn(const json::object* status, std::string_view type) {
  const json::object* c = api::FindCondition(status, type);
  if (!c) return {};
  return {std::string(type), std::string(api::StringAt(c, "status")),
          std::string(api::StringAt(c, "reason")), std::string(api::StringAt(c, "message"))};
}

// Go's url.ParseRequestURI succeeds with a scheme and a host: kube's test for
// an approval that names where the API was approved. An approximation of Go's
// parser: a scheme, "://", then a host of URL host characters with an optional
// numeric port (or a bracketed IPv6 address).
bool IsUrlWithHost(std::string_view s) {
  for (char c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  }
  size_t colon = s.find("://");
  if (colon == std::string_view::npos || colon == 0 ||
      !std::isalpha(static_cast<unsigned char>(s[0])))
    return false;
  for (char c : s.substr(0, colon)) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.')
      return false;
  }
  std::string_view authority = s.substr(colon + 3);
  authority = authority.substr(0, authority.find_first_of("/?"));
  if (size_t at = authority.rfind('@'); at != std::string_view::npos)
    authority = authority.substr(at + 1);
  std::string_view host = authority;
  if (!host.empty() && host.front() == '[') {
    size_t close = host.find(']');
    if (close == std::string_view::npos) return false;
    std::string_view rest = host.substr(close + 1);
    host = host.substr(0, close + 1);
    if (!rest.empty() && rest.front() != ':') return false;
    authority = rest;
  } else if (size_t port = host.rfind(':'); port != std::string_view::npos) {
    authority = host.substr(port);
    host = host.substr(0, port);
    for (char c : host) {
      if (!std::isalnum(static_cast<unsigned char>(c)) &&
          std::string_view("-._~!$&'()*+,;=%").find(c) == std::string_view::npos) {
        return false;
      }
    }
  } else {
    authority = {};
  }
  if (!authority.empty()) {  // ":port"
    for (char c : authority.substr(1)) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    }
  }
  return !host.empty();
}

enum class Approval { kInvalid, kApproved, kBypassed, kMissing };

Approval ApprovalOf(std::string_view annotation) {
  if (annotation.empty()) return Approval::kMissing;
  if (annotation.starts_with("unapproved")) return Approval::kBypassed;
  if (IsUrlWithHost(annotation)) return Approval::kApproved;
  return Approval::kInvalid;
}

}  // namespace

Names Names::From(const json::object* names) {
  Names n;
  n.plural = api::StringAt(names, "plural");
  n.singular = api::StringAt(names, "singular");
  n.kind = api::StringAt(names, "kind");
  n.list_kind = api::StringAt(names, "listKind");
  n.short_names = Strings(api::ArrayAt(names, "shortNames"));
  n.categories = Strings(api::ArrayAt(names, "categories"));
  return n;
}

json::object Names::ToJson() const {
  json::object o;
  o["plural"] = plural;
  if (!singular.empty()) o["singular"] = singular;
  if (!short_names.empty()) o["shortNames"] = ToArray(short_names);
  o["kind"] = kind;
  if (!list_kind.empty()) o["listKind"] = list_kind;
  if (!categories.empty()) o["categories"] = ToArray(categories);
  return o;
}

void GroupNames::Add(const Names& accepted) {
  resources_.insert(accepted.plural);
  resources_.insert(accepted.singular);
  resources_.insert(accepted.short_names.begin(), accepted.short_names.end());
  kinds_.insert(accepted.kind);
  kinds_.insert(accepted.list_kind);
}

NamingDecision DecideNames(const Names& requested, const Names& accepted,
                           const json::object* status, const GroupNames& taken) {
  NamingDecision d;
  d.accepted = accepted;
  api::Condition& names = d.names_accepted;
  names.type = "NamesAccepted";
  // Every name is checked, so that the accepted names are the best match
  // possible; the last conflict found names the condition.
  auto refuse = [&names](std::string_view reason, std::string message) {
    names.status = "False";
    names.reason = reason;
    names.message = std::move(message);
  };
  // One name: accepted into `into`, or refused for `reason`.
  auto decide = [&refuse](const std::string& wanted, const std::string& held, bool taken_already,
                          std::string_view reason, std::string& into) {
    if (auto conflict = InUse(wanted, held, taken_already)) {
      refuse(reason, *conflict);
    } else {
      into = wanted;
    }
  };
  decide(requested.plural, accepted.plural, taken.HasResource(requested.plural), "PluralConflict",
         d.accepted.plural);
  decide(requested.singular, accepted.singular, taken.HasResource(requested.singular),
         "SingularConflict", d.accepted.singular);
  if (requested.short_names != accepted.short_names) {
    std::vector<std::string> conflicts;
    for (const std::string& name : requested.short_names) {
      // A short name this definition holds already stays its own.
      if (std::find(accepted.short_names.begin(), accepted.short_names.end(), name) !=
          accepted.short_names.end()) {
        continue;
      }
      if (auto conflict = InUse(name, "", taken.HasResource(name))) conflicts.push_back(*conflict);
    }
    if (!conflicts.empty()) {
      refuse("ShortNamesConflict", AggregateMessage(conflicts));
    } else {
      d.accepted.short_names = requested.short_names;
    }
  }
  decide(requested.kind, accepted.kind, taken.HasKind(requested.kind), "KindConflict",
         d.accepted.kind);
  decide(requested.list_kind, accepted.list_kind, taken.HasKind(requested.list_kind),
         "ListKindConflict", d.accepted.list_kind);
  d.accepted.categories = requested.categories;
  if (names.status.empty()) {
    names.status = "True";
    names.reason = "NoConflicts";
    names.message = "no conflicts found";
  }

  d.established = ConditionIn(status, "Established");
  if (d.established.type.empty())
    d.established = {"Established", "False", "NotAccepted", "not all names are accepted"};
  if (d.established.status != "True" && names.status == "True") {
    d.established = {"Established", "False", "Installing", "the initial names have been accepted"};
  }
  return d;
}

bool ApplyNames(json::object& status, const json::object* spec_names, const GroupNames& taken,
                std::string_view now) {
  const Names requested = Names::From(spec_names);
  const Names accepted = Names::From(api::ObjectAt(status, "acceptedNames"));
  // kube's naming controller leaves a definition whose names are all
  // accepted alone, whatever its NamesAccepted says.
  if (requested == accepted) return false;
  NamingDecision d = DecideNames(requested, accepted, &status, taken);
  const api::Condition before = ConditionIn(&status, "NamesAccepted");
  if (d.accepted == accepted && before.status == d.names_accepted.status &&
      before.reason == d.names_accepted.reason && before.message == d.names_accepted.message) {
    return false;
  }
  status["acceptedNames"] = d.accepted.ToJson();
  api::SetCondition(status, d.names_accepted, now);
  api::SetCondition(status, d.established, now);
  return true;
}

bool Establish(json::object& status, std::string_view now) {
  if (!ConditionTrue(&status, "NamesAccepted") || ConditionTrue(&status, "Established"))
    return false;
  return api::SetCondition(
      status,
      {"Established", "True", "InitialNamesAccepted", "the initial names have been accepted"}, now);
}

bool Servable(const json::object* status) {
  return ConditionTrue(status, "NamesAccepted") || ConditionTrue(status, "Established");
}

bool ConditionTrue(const json::object* status, std::string_view type) {
  const json::object* c = api::FindCondition(status, type);
  return c && api::StringAt(c, "status") == "True";
}

std::string AggregateMessage(const std::vector<std::string>& messages) {
  std::vector<std::string> distinct;
  for (const auto& m : messages) {
    if (std::find(distinct.begin(), distinct.end(), m) == distinct.end()) distinct.push_back(m);
  }
  if (distinct.size() == 1) return distinct.front();
  std::string out = "[";
  for (size_t i = 0; i < distinct.size(); ++i) {
    if (i > 0) out += ", ";
    out += distinct[i];
  }
  return out + "]";
}

bool IsProtectedCommunityGroup(std::string_view group) {
  return group == "k8s.io" || group.ends_with(".k8s.io") || group == "kubernetes.io" ||
         group.ends_with(".kubernetes.io");
}

void ValidateApiApproval(const api::Object& crd, const api::Object* old, api::FieldErrors& errors) {
  if (!IsProtectedCommunityGroup(api::StringAt(api::Spec(crd), "group"))) return;
  const std::string_view annotation = api::Annotation(crd, kApiApprovedAnnotation);
  const Approval now = ApprovalOf(annotation);
  // An update that leaves the approval's state as it was is never refused
  // for it (a controller rewriting the spec of an older definition).
  if (old && ApprovalOf(api::Annotation(*old, kApiApprovedAnnotation)) == now) return;
  const std::string path = "metadata.annotations[" + std::string(kApiApprovedAnnotation) + "]";
  const std::string see = ", see https://github.com/kubernetes/enhancements/pull/1111";
  switch (now) {
    case Approval::kApproved:
    case Approval::kBypassed:
      return;
    case Approval::kMissing:
      errors.Required(path, "protected groups must have approval annotation \"" +
                                std::string(kApiApprovedAnnotation) + "\"" + see);
      return;
    case Approval::kInvalid:
      errors.Invalid(path, annotation,
                     "protected groups must have approval annotation \"" +
                         std::string(kApiApprovedAnnotation) +
                         "\" with either a URL or a reason starting with \"unapproved\"" + see);
      return;
  }
}

}  // namespace berth::apiserver::crd
