#pragma once
// Where informers get their objects: the store itself (in process), or an
// API server over HTTP (list + watch, relisting after a lost watch). The
// scheduler runner and the controller manager take either.

#include "client/http_client.h"
#include "client/informer_factory.h"
#include "store/store.h"

namespace berth::cluster {

// REQUIRES: `store` outlives the informers made.
client::InformerFactory::KindSourceFactory StoreInformerSources(store::Store& store);
// Each informer holds a watch on `http`'s server. REQUIRES: `http` outlives them.
client::InformerFactory::KindSourceFactory HttpInformerSources(client::HttpClient& http);

}  // namespace berth::cluster
