#pragma once
// SIGINT and SIGTERM for long-running processes (`berth serve`, `berth
// scheduler`, `berth controller-manager`, an operator built on the client
// library: examples/myapp-operator/): blocked in every thread
// (construct before any thread starts), then taken by Wait.

#include <pthread.h>
#include <signal.h>

namespace berth::client {

class TerminationSignals {
 public:
  TerminationSignals() {
    sigemptyset(&set_);
    sigaddset(&set_, SIGINT);
    sigaddset(&set_, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set_, nullptr);
  }
  // Blocks until one arrives; returns it.
  int Wait() {
    int signal_number = 0;
    sigwait(&set_, &signal_number);
    return signal_number;
  }

 private:
  sigset_t set_;
};

}  // namespace berth::client
