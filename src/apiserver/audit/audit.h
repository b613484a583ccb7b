#pragma once
// kube-apiserver's audit log backend (--audit-log-path, --audit-log-maxsize,
// --audit-log-maxbackup, --audit-log-maxage): one audit.k8s.io/v1 Event per
// line, JSON, at the Metadata level (who, what, when, the answer's code;
// never bodies), for every request but the health checks (/healthz,
// /livez, /readyz). A request gets its ResponseComplete event once its answer
// is ready to go (after a deferred write is durable); a watch gets
// ResponseStarted when its stream begins and ResponseComplete when it ends.
//
// Every answer carries the request's audit ID as the Audit-ID header, as
// kube's: the client's own Audit-ID header when it sent one, else a new UUID.
//
// Rotation is lumberjack's, as kube uses it: before a line would take the
// file past max_size_bytes, the file is renamed to
// NAME-<UTC time 2006-01-02T15-04-05.000>.EXT beside it and a new one is
// started; of the rotated files the newest max_backups are kept (0: all) and
// those older than max_age_days removed (0: none).
//
// Not supported: audit policies (--audit-policy-file: every request is
// logged at Metadata), the webhook backend, batching, and compression.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "api/status.h"
#include "apiserver/http.h"

namespace berth::apiserver {

struct AuditLogOptions {
  std::string path;           // "-": standard output (never rotated)
  int64_t max_size_bytes = 100 << 20;  // lumberjack's default, which kube's --audit-log-maxsize=0 keeps
  int max_backups = 0;
  int max_age_days = 0;
};

class AuditLog {
 public:
  // Creates the file (mode 0600) and its directory (0700) when missing and
  // appends to it. Unavailable naming the path when it cannot be opened.
  static Result<std::unique_ptr<AuditLog>> Open(AuditLogOptions options);
  ~AuditLog();
  AuditLog(const AuditLog&) = delete;
  AuditLog& operator=(const AuditLog&) = delete;

  // Appends one line (a newline is added), rotating first when due.
  // Thread-safe.
  void Write(std::string_view line);

  // The path of the current file ("-" for standard output).
  const std::string& path() const { return options_.path; }

 private:
  explicit AuditLog(AuditLogOptions options) : options_(std::move(options)) {}
  Status OpenFile();     // REQUIRES: mu_ held
  void Rotate();         // REQUIRES: mu_ held
  void RemoveOldBackups();  // REQUIRES: mu_ held

  AuditLogOptions options_;
  std::mutex mu_;
  int fd_ = -1;          // guarded by mu_
  int64_t size_ = 0;     // bytes in the current file; guarded by mu_
  bool reported_ = false;  // a write error was logged; guarded by mu_
};

// One request being audited (BeginAudit → FinishAudit).
struct AuditRecord {
  AuditLog* log = nullptr;  // null: not audited (only the Audit-ID header)
  std::string id;
  std::chrono::system_clock::time_point received;
};

// Stamps the request's audit ID and its arrival. `log` may be null.
AuditRecord BeginAudit(AuditLog* log, const Request& request);
// Adds the Audit-ID header to `response` and arranges its events (at once,
// once a deferred answer is ready, or around a stream); returns it.
Response FinishAudit(AuditRecord record, const Request& request, Response response);

}  // namespace berth::apiserver
