#pragma once
// CustomResourceDefinition conversion webhooks (spec.conversion.strategy
// Webhook), as kube's apiextensions-apiserver calls them: objects stored in
// one version and read or written in another are sent in one
// apiextensions.k8s.io ConversionReview (v1, or v1beta1 when the definition
// lists only that in conversionReviewVersions) to the webhook by URL or by
// Service; its answer is checked as kube checks it (the uid, Success, one
// converted object per object sent, each in the desired apiVersion with the
// same kind, name, namespace and uid) and each converted object keeps the
// original's metadata but for its labels and annotations.
//
// The REST handlers reach it through ResourceStrategy::Converter()
// (registry.h): reads convert what is stored into the version asked for,
// writes convert into the storage version before the store sees them.

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>

#include "apiserver/admission/webhook/webhook.h"
#include "apiserver/registry/registry.h"

namespace berth::apiserver::crd {

// One ConversionReview asked of a webhook.
struct ConversionReview {
  std::string uid;
  std::string version;  // "v1" or "v1beta1"
  std::string body;
};

// The review asking for `objects` in `api_version`, in the first of
// `review_versions` berth speaks; an error when it speaks none of them.
Result<ConversionReview> MakeConversionReview(std::span<const std::string> review_versions,
                                              std::span<const boost::json::object> objects,
                                              std::string_view api_version);

// The converted objects of a webhook's `answer` to `review`, checked as kube
// checks them and with the originals' metadata (but labels and annotations)
// restored. The error's text is what follows kube's "conversion webhook for
// <gvk> ..." (e.g. "failed: <the webhook's message>"); `list`: the objects
// are a list's, which kube's messages say ("invalid converted object at index 1").
Result<std::vector<boost::json::object>> ReadConvertedObjects(const ConversionReview& review, std::string_view answer,
                                                              std::span<const boost::json::object> originals,
                                                              std::string_view api_version, bool list);

// The converter of one definition whose strategy is Webhook.
class WebhookConverter final : public VersionConverter {
 public:
  // `crd`: the definition as stored (spec.conversion.webhook, the storage
  // version, the kind's names).
  WebhookConverter(std::shared_ptr<webhook::Caller> caller, const api::Object& crd);

  Result<std::vector<api::ObjectPtr>> Convert(std::vector<api::ObjectPtr> objects, std::string_view api_version,
                                              bool list) const override;
  std::string_view StorageVersion() const override { return storage_version_; }

 private:
  const std::shared_ptr<webhook::Caller> caller_;
  webhook::Hook hook_;  // the client config, as Caller takes it
  std::vector<std::string> review_versions_;
  std::string storage_version_;  // "group/version"
  std::string kind_;             // the kind's name, for kube's messages
};

// The converter `crd` needs: a WebhookConverter for strategy Webhook,
// nullptr for None.
std::shared_ptr<const VersionConverter> ConverterFor(const std::shared_ptr<webhook::Caller>& caller,
                                                     const api::Object& crd);

}  // namespace berth::apiserver::crd
