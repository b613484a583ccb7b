#pragma once
// The HTTP(S) client of one scheduler extender: POST a JSON body to
// urlPrefix/verb, with a deadline for the whole call (connecting included),
// on kept-alive connections (client/post_client.h: an extender is called once
// or twice per scheduling cycle). Thread-safe.

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "api/status.h"
#include "client/post_client.h"
#include "scheduler/framework/config.h"

namespace berth::scheduler {

class ExtenderClient {
 public:
  // `url_prefix`: http://HOST[:PORT][/PATH] or https://…; with https, `tls`
  // (and enable_https without a CA: no verification, as kube-scheduler) say
  // how to verify the server and which client certificate to present.
  // BadRequest for a URL it cannot use or TLS files it cannot read.
  static Result<std::unique_ptr<ExtenderClient>> Create(const std::string& url_prefix,
                                                        bool enable_https,
                                                        const std::optional<ExtenderTlsConfig>& tls,
                                                        std::chrono::milliseconds timeout);

  // POSTs `body` (application/json) to urlPrefix/verb. The answer's body when
  // the status is 200; Unavailable for a connection failure or a timeout,
  // Internal for another status, each saying which URL failed.
  Result<std::string> Post(std::string_view verb, std::string_view body);

  std::string Url(std::string_view verb) const { return http_->Url("/" + std::string(verb)); }

 private:
  explicit ExtenderClient(std::unique_ptr<client::PostClient> http) : http_(std::move(http)) {}
  std::unique_ptr<client::PostClient> http_;
};

}  // namespace berth::scheduler
