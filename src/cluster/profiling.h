#pragma once
// The running process's profiles over HTTP, at Go's net/http/pprof paths
// (kube's --profiling), from gperftools:
//
//   /debug/pprof/                  an index of the profiles (text/html)
//   /debug/pprof/profile?seconds=N a CPU profile of the next N seconds (default
//                                  30, at most 600), gperftools' profiler, the
//                                  format google-pprof reads; one at a time:
//                                  another while one runs gets 409 Conflict
//   /debug/pprof/heap              tcmalloc's sampled heap (live objects, one
//                                  sample per 512 KiB allocated on average)
//
//   google-pprof --text path/to/berth profile.out
//
// Builds without gperftools (the sanitizer builds: their own allocator and
// signal handling) serve the same paths with 503 "profiling not available in
// this build". Profiles stop nothing; the CPU profile's request holds one of
// the server's worker threads for its N seconds, and a shutdown meanwhile
// waits for it to end.

#include <vector>

#include "apiserver/http.h"

namespace berth::cluster {

// The routes, for ApiServer::Options::routes and ComponentHttpOptions::routes.
std::vector<apiserver::Route> ProfilingRoutes();

// Whether this build can profile (linked with gperftools).
bool ProfilingAvailable();

// Turns on tcmalloc's heap sampling (every 512 KiB allocated on average, Go's
// default rate) unless TCMALLOC_SAMPLE_PARAMETER chose a rate already.
// Allocations before the call are not in the heap profile; threads that
// allocated before it start sampling after their next 16 MiB. Call it early
// in main, before other threads start. No-op in builds without gperftools.
void EnableHeapSampling();

}  // namespace berth::cluster
