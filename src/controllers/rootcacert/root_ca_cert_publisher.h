#pragma once
// The root CA publisher (kube's pkg/controller/certificates/rootcacertpublisher,
// kube-controller-manager's root-ca-certificate-publisher-controller): every
// namespace holds a ConfigMap "kube-root-ca.crt" whose data is exactly
// {"ca.crt": <bundle>}, annotated kubernetes.io/description with kube's text,
// so pods (the kubelet's projected kube-api-access volumes) can verify the
// API server. It is created when a namespace is added or becomes Active
// again, created again when deleted, and written back when its data or the
// annotation was changed (its other metadata, labels included, is kept).
// As kube's, it does not look at the namespace's phase itself: a create in a
// terminating or vanished namespace is refused by the API server and
// dropped, not retried.
//
// What ca.crt holds is the bundle in the options, the same for every
// namespace:
//   - `berth serve` over TLS: the certificates of --tls-cert-file, the chain
//     the API server presents. Go clients (kube's) take any certificate of
//     the bundle as a trust anchor, so a self-signed serving certificate or
//     a chain that includes its root verifies; a certificate issued by a CA
//     the file does not contain does not.
//   - `berth serve` over plain HTTP: empty. There is no certificate to
//     verify; the ConfigMap still exists, as pods mounting it need.
//   - `berth controller-manager`: the CA its own client trusts (the
//     kubeconfig's certificate-authority), as kube-controller-manager falls
//     back to its client's CA data without --root-ca-file; empty when it
//     trusts the system's roots.
//
// Reads the ConfigMap informer's cache; writes through the controllers'
// RestClient. One worker, as kube runs it. Metrics: kube's
// root_ca_cert_publisher_sync_total and _sync_duration_seconds by HTTP code.
// Records no Events (kube records none).

#include <string>

#include "api/status.h"
#include "controllers/controller.h"

namespace berth::controllers {

struct RootCaCertPublisherOptions {
  // The PEM bundle published as ca.crt; empty publishes an empty ca.crt.
  std::string root_ca;
};

// The CERTIFICATE blocks of the PEM file at `path`, each ending in a newline,
// and nothing else of it (a file that holds a private key too does not
// publish it). BadRequest naming the path when it cannot be read or holds no
// certificate.
Result<std::string> ReadRootCaFile(const std::string& path);

class RootCaCertPublisher final : public Controller {
 public:
  static constexpr char kConfigMapName[] = "kube-root-ca.crt";
  static constexpr char kDescriptionAnnotation[] = "kubernetes.io/description";
  static constexpr char kDescription[] =
      "Contains a CA bundle that can be used to verify the kube-apiserver when using internal "
      "endpoints such as the internal service IP or kubernetes.default.svc. No other usage is "
      "guaranteed across distributions of Kubernetes clusters.";

  RootCaCertPublisher(const ControllerContext& context, RootCaCertPublisherOptions options,
                      int workers = 1);

 protected:
  // `key` is a namespace's name.
  Status Reconcile(const std::string& key) override;

 private:
  Status Sync(const std::string& ns);
  void RecordSync(const Status& result, std::chrono::nanoseconds took);

  const std::string root_ca_;
  client::SharedInformer& config_maps_;
  metrics::Family<metrics::Counter>* syncs_ = nullptr;           // nullptr: no metrics
  metrics::Family<metrics::Histogram>* sync_seconds_ = nullptr;  // nullptr: no metrics
};

}  // namespace berth::controllers
