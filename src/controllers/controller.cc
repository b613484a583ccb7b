#include "controllers/controller.h"

#include "log/log.h"

namespace berth::controllers {

Controller::Controller(std::string name, const ControllerContext& context, int workers)
    : client_(context.client),
      informers_(context.informers),
      clock_(context.clock ? *context.clock : api::RealClock::Instance()),
      name_(std::move(name)),
      workers_(workers),
      queue_(name_, context.registry, {.clock = &clock_}) {
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
  pool_ = std::make_unique<client::WorkerPool>(
      queue_, workers_, [this](const std::string& key) { return Reconcile(key); },
      [this](const std::string& key, const Status& s) {
        if (errors_) errors_->Increment();
        // Conflicts are the normal cost of optimistic concurrency: retried quietly.
        if (s.code() != StatusCode::kConflict && s.code() != StatusCode::kAlreadyExists) {
          BERTH_LOG_ERROR(s.message(), "Error syncing", {"controller", name_}, {"key", key});
        }
      });
}

void Controller::Stop() {
  queue_.ShutDown();
  if (pool_) pool_->Stop();
}

}  // namespace berth::controllers
