#include "cluster/profiling.h"

#include <unistd.h>

#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "apiserver/api_server.h"
#include "log/log.h"

#ifdef BERTH_HAVE_GPERFTOOLS
#include <gperftools/malloc_extension.h>
#include <gperftools/profiler.h>

// tcmalloc's sampling period, a gflags-style flag of gperftools read at every
// sampling decision; declared as gflags' DECLARE_int64 would, which is how
// gperftools means it to be set from code.
namespace FLAG__namespace_do_not_use_directly_use_DECLARE_int64_instead {
extern int64_t FLAGS_tcmalloc_sample_parameter;
}  // namespace FLAG__namespace_do_not_use_directly_use_DECLARE_int64_instead
#endif

namespace berth::cluster {
namespace {

#ifdef BERTH_HAVE_GPERFTOOLS
constexpr int kDefaultSeconds = 30;  // Go's default
constexpr int kMaxSeconds = 600;
constexpr int64_t kHeapSamplePeriod = 512 * 1024;  // Go's MemProfileRate
#endif

apiserver::Response Text(int status, std::string body, std::string content_type) {
  return apiserver::BodyResponse(status, std::move(body), std::move(content_type));
}

apiserver::Response Index(const apiserver::Request&) {
  std::string body =
      "<html><head><title>/debug/pprof/</title></head><body>\n"
      "/debug/pprof/<br>\n<br>\nTypes of profiles available:\n<table>\n"
      "<tr><td><a href=\"heap\">heap</a></td><td>A sampling of memory allocations of live objects.</td></tr>\n"
      "<tr><td><a href=\"profile\">profile</a></td><td>CPU profile. You can specify the duration in the seconds "
      "GET parameter. After you get the profile file, use the google-pprof tool: "
      "google-pprof --text BINARY FILE</td></tr>\n"
      "</table>\n";
  if (!ProfilingAvailable()) body += "<p>profiling not available in this build</p>\n";
  body += "</body></html>\n";
  return Text(200, std::move(body), "text/html; charset=utf-8");
}

#ifdef BERTH_HAVE_GPERFTOOLS

std::atomic<bool> cpu_profile_running{false};

std::string ReadWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

apiserver::Response CpuProfile(const apiserver::Request& request) {
  int seconds = kDefaultSeconds;
  if (auto given = request.Query("seconds")) {
    auto [end, ec] = std::from_chars(given->data(), given->data() + given->size(), seconds);
    if (ec != std::errc() || end != given->data() + given->size() || seconds < 1 || seconds > kMaxSeconds) {
      return apiserver::ErrorResponse(Status::BadRequest("seconds must be a whole number from 1 to " +
                                                         std::to_string(kMaxSeconds) + ", not \"" +
                                                         std::string(*given) + "\""));
    }
  }
  bool expected = false;
  if (!cpu_profile_running.compare_exchange_strong(expected, true)) {
    return apiserver::ErrorResponse(Status::Conflict("cpu profiling already in use"));
  }
  struct Done {
    ~Done() { cpu_profile_running.store(false); }
  } done;

  char path[] = "/tmp/berth-cpu-profile-XXXXXX";
  const int fd = ::mkstemp(path);
  if (fd < 0) return apiserver::ErrorResponse(Status::Internal("could not create the profile's file"));
  ::close(fd);
  // A process started under CPUPROFILE is profiled already: ProfilerStart refuses.
  if (!ProfilerStart(path)) {
    ::unlink(path);
    return apiserver::ErrorResponse(Status::Conflict("cpu profiling already in use"));
  }
  BERTH_VLOG(2, "CPU profile started", {"seconds", seconds});
  std::this_thread::sleep_for(std::chrono::seconds(seconds));
  ProfilerStop();
  std::string profile = ReadWhole(path);
  ::unlink(path);
  BERTH_VLOG(2, "CPU profile done", {"bytes", profile.size()});
  apiserver::Response r = Text(200, std::move(profile), "application/octet-stream");
  r.headers.emplace_back("Content-Disposition", "attachment; filename=\"profile\"");
  return r;
}

apiserver::Response HeapProfile(const apiserver::Request&) {
  std::string profile;
  MallocExtension::instance()->GetHeapSample(&profile);
  apiserver::Response r = Text(200, std::move(profile), "application/octet-stream");
  r.headers.emplace_back("Content-Disposition", "attachment; filename=\"heap\"");
  return r;
}

#else

apiserver::Response NotAvailable() {
  return apiserver::ErrorResponse(Status::Unavailable("profiling not available in this build"));
}

apiserver::Response CpuProfile(const apiserver::Request&) { return NotAvailable(); }
apiserver::Response HeapProfile(const apiserver::Request&) { return NotAvailable(); }

#endif

}  // namespace

bool ProfilingAvailable() {
#ifdef BERTH_HAVE_GPERFTOOLS
  return true;
#else
  return false;
#endif
}

void EnableHeapSampling() {
#ifdef BERTH_HAVE_GPERFTOOLS
  if (std::getenv("TCMALLOC_SAMPLE_PARAMETER") != nullptr) return;
  FLAG__namespace_do_not_use_directly_use_DECLARE_int64_instead::FLAGS_tcmalloc_sample_parameter = kHeapSamplePeriod;
  // A thread's sampler reads the period when its cache is made: this
  // thread's was made with sampling off (and would look again only after
  // 16 MiB). Releasing the cache makes the next allocation start a new one.
  MallocExtension::instance()->MarkThreadIdle();
#endif
}

std::vector<apiserver::Route> ProfilingRoutes() {
  return {{"/debug/pprof", [](apiserver::Request& r) -> apiserver::Response {
             if (r.method != "GET" && r.method != "HEAD") {
               return apiserver::ErrorResponse(Status(
                   StatusCode::kMethodNotAllowed, "the server does not allow this method on the requested resource"));
             }
             if (r.path == "/debug/pprof" || r.path == "/debug/pprof/") return Index(r);
             if (r.path == "/debug/pprof/profile") return CpuProfile(r);
             if (r.path == "/debug/pprof/heap") return HeapProfile(r);
             return apiserver::ErrorResponse(Status::NotFound("the server could not find the requested resource"));
           }}};
}

}  // namespace berth::cluster
