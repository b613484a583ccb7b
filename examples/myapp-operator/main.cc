// myapp-operator: keeps a Deployment for every MyApp (crd.yaml), against a
// Kubernetes-compatible API server over HTTP, with berth's client library:
// HTTP informers for MyApps and Deployments, a RestClient for writes, and
// the controller runtime's rate-limited work queue.
//
//   myapp-operator --server http://127.0.0.1:8080

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "api/kinds.h"
#include "client/http_client.h"
#include "client/http_informer.h"
#include "client/informer_factory.h"
#include "client/rest_client.h"
#include "client/termination_signals.h"
#include "myapp_controller.h"

namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "myapp-operator: %s\n", message.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  namespace api = berth::api;
  namespace client = berth::client;

  std::string server = "http://127.0.0.1:8080";
  int workers = 2;
  CLI::App cli("Keeps a Deployment for every MyApp (example.com/v1)", "myapp-operator");
  cli.add_option("--server,-s", server, "The API server (http://HOST:PORT)")->capture_default_str();
  cli.add_option("--workers", workers, "MyApps reconciled at once")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  CLI11_PARSE(cli, argc, argv);

  // Before any thread starts, so that every thread leaves them to Wait.
  berth::client::TerminationSignals signals;

  // This process must know the kind to decode MyApps and to build their paths.
  auto myapp = api::RegisterKind(myapp_operator::MyAppKindSpec());
  if (!myapp.ok()) return Fail("registering MyApp: " + myapp.status().message());

  auto writer = client::HttpClient::Connect(server);
  if (!writer.ok()) return Fail("--server " + server + ": " + writer.status().message());
  // Informers hold watch connections of their own.
  auto reader = client::HttpClient::Connect(server);
  if (!reader.ok()) return Fail("--server " + server + ": " + reader.status().message());
  client::RestClient rest(client::HttpTransport(*writer.value()));
  client::HttpClient& watches = *reader.value();
  client::InformerFactory informers([&watches](api::Kind kind, client::InformerHandlers handlers) {
    return std::make_unique<client::HttpInformer>(
        watches, client::RestClient::CollectionPath(kind, ""), std::move(handlers));
  });

  myapp_operator::MyAppController controller({.client = rest, .informers = informers},
                                             myapp.value(), workers);
  if (berth::Status s = informers.Start(); !s.ok()) {
    informers.Stop();
    return Fail("listing MyApps and Deployments on " + server +
                " (is crd.yaml applied?): " + s.message());
  }
  controller.Run();
  std::fprintf(stderr, "myapp-operator: watching MyApps and Deployments on %s\n", server.c_str());
  std::fflush(stderr);

  signals.Wait();
  controller.Stop();
  informers.Stop();
  std::fprintf(stderr, "myapp-operator: stopped\n");
  return 0;
}
