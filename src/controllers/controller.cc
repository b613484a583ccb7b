#include "controllers/controller.h"

#include <cstdio>

namespace berth::controllers {

Controller::Controller(std::string name, const ControllerContext& context, int workers)
    : client_(context.client),
      informers_(context.informers),
      name_(std::move(name)),
      workers_(workers),
      queue_(name_, context.registry) {
  if (context.registry) {
    errors_ = &context.registry
                   ->AddCounter("controller_reconcile_errors_total",
                                "Reconciles that failed and were retried with backoff, by controller",
                                {"controller"})
                   .WithLabels({name_});
  }
}

Controller::~Controller() { Stop(); }

void Controller::Run() {
  for (int i = 0; i < workers_; ++i) threads_.emplace_back([this] { Work(); });
}

void Controller::Stop() {
  queue_.ShutDown();
  for (auto& t : threads_) t.join();
  threads_.clear();
}

void Controller::Work() {
  std::string key;
  while (queue_.Get(&key)) {
    Status s = Reconcile(key);
    if (s.ok()) {
      queue_.Forget(key);
    } else {
      if (errors_) errors_->Increment();
      // Conflicts are the normal cost of optimistic concurrency: retry quietly.
      if (s.code() != StatusCode::kConflict && s.code() != StatusCode::kAlreadyExists) {
        std::fprintf(stderr, "berth: %s controller: %s: %s\n", name_.c_str(), key.c_str(), s.message().c_str());
      }
      queue_.AddRateLimited(key);
    }
    queue_.Done(key);
  }
}

}  // namespace berth::controllers
