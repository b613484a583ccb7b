#include "cluster/informer_sources.h"

#include "client/http_informer.h"
#include "client/rest_client.h"
#include "client/store_informer.h"

namespace berth::cluster {

client::InformerFactory::KindSourceFactory StoreInformerSources(store::Store& store) {
  return [&store](api::Kind kind, client::InformerHandlers handlers) -> std::unique_ptr<client::InformerSource> {
    return std::make_unique<client::StoreInformer>(store, kind, std::move(handlers));
  };
}

client::InformerFactory::KindSourceFactory HttpInformerSources(client::HttpClient& http) {
  return [&http](api::Kind kind, client::InformerHandlers handlers) -> std::unique_ptr<client::InformerSource> {
    return std::make_unique<client::HttpInformer>(http, client::RestClient::CollectionPath(kind, ""),
                                                  std::move(handlers));
  };
}

}  // namespace berth::cluster
