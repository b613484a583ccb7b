#pragma once
// pods/NAME/exec, attach, portforward and proxy, kube's ExecREST, AttachREST,
// PortForwardREST and ProxyREST. kube-apiserver forwards these to the pod's
// kubelet; berth's simulated kubelets run no containers, so there is nothing
// to reach: any method on an existing pod answers 400 saying so, and an
// exec or attach over WebSocket (kube's v1-v5 channel protocols) is upgraded
// and gets that refusal on its error channel, where kubectl and the client
// libraries read a command's failure. Not listed in discovery.

#include <memory>
#include <string>
#include <vector>

#include "apiserver/registry/subresource.h"

namespace berth::apiserver {

class ConnectSubresource final : public Subresource {
 public:
  // `action`: what the refusal says the client tried ("exec into").
  ConnectSubresource(Description description, std::string action);

  Response Serve(Request& request, const RequestInfo& info, GenericRest& rest) const override;

 private:
  const std::string action_;
};

// The four of a pod, in kube's order: exec, attach, portforward, proxy.
std::vector<std::unique_ptr<const Subresource>> PodConnectSubresources();

}  // namespace berth::apiserver
