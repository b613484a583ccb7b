// my-scheduler: berth's whole command line (serve, scheduler, ...) with one
// more scheduler plugin, MinScore, as kube-scheduler's out-of-tree plugins
// are built (app.NewSchedulerCommand(app.WithPlugin(...))).
//
//   my-scheduler serve --in-memory --sim-nodes 3 --config min-score-config.yaml

#include "cmd/app.h"
#include "min_score.h"

int main(int argc, char** argv) {
  return berth::app::Main(argc, argv,
                          {berth::app::WithPlugin(std::string(my_scheduler::MinScore::kName),
                                                  my_scheduler::NewMinScore)});
}
