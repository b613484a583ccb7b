#pragma once
// One SharedInformer per kind for a whole process: controllers ask for the
// kinds they watch and register their handlers, then Start lists and watches
// every kind asked for. The source (store or HTTP) is chosen by whoever builds
// the factory.

#include <map>
#include <memory>

#include "client/shared_informer.h"

namespace berth::client {

class InformerFactory {
 public:
  using KindSourceFactory = std::function<std::unique_ptr<InformerSource>(api::Kind, InformerHandlers)>;

  explicit InformerFactory(KindSourceFactory make_source) : make_source_(std::move(make_source)) {}
  ~InformerFactory() { Stop(); }

  // The informer of `kind`, created on first use. Before Start only.
  SharedInformer& For(api::Kind kind) {
    auto& informer = informers_[kind];
    if (!informer) {
      informer = std::make_unique<SharedInformer>(
          [this, kind](InformerHandlers handlers) { return make_source_(kind, std::move(handlers)); });
    }
    return *informer;
  }

  // Lists every kind asked for, in kind order, then watches them.
  Status Start() {
    for (auto& [kind, informer] : informers_) {
      if (Status s = informer->Start(); !s.ok()) return s;
    }
    return Status::Ok();
  }
  void Stop() {
    for (auto& [kind, informer] : informers_) informer->Stop();
  }

 private:
  KindSourceFactory make_source_;
  std::map<api::Kind, std::unique_ptr<SharedInformer>> informers_;
};

}  // namespace berth::client
