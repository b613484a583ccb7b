#include "apiserver/audit/audit.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <vector>

#include <boost/json.hpp>

#include "api/codec/cbor.h"
#include "api/codec/json_parse.h"
#include "api/time/rfc3339.h"
#include "apiserver/registry/system_fields.h"
#include "apiserver/request_info.h"
#include "apiserver/schema/protobuf.h"
#include "log/log.h"

namespace berth::apiserver {

namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

// lumberjack's backup time format (Go layout 2006-01-02T15-04-05.000, UTC).
constexpr size_t kBackupTimeLength = 23;

std::string BackupTime(std::chrono::system_clock::time_point t) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
  const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char out[96];
  std::snprintf(out, sizeof out, "%04d-%02d-%02dT%02d-%02d-%02d.%03d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms % 1000));
  return out;
}

// The time in a backup's name, or nullopt when it is not one.
std::optional<std::chrono::system_clock::time_point> ParseBackupTime(std::string_view text) {
  if (text.size() != kBackupTimeLength) return std::nullopt;
  int y, mo, d, h, mi, s, ms;
  std::string copy(text);
  if (std::sscanf(copy.c_str(), "%4d-%2d-%2dT%2d-%2d-%2d.%3d", &y, &mo, &d, &h, &mi, &s, &ms) != 7) {
    return std::nullopt;
  }
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  return std::chrono::system_clock::from_time_t(timegm(&tm)) + std::chrono::milliseconds(ms);
}

// NAME and .EXT of the log's file name (lumberjack's prefixAndExt).
std::pair<std::string, std::string> PrefixAndExtension(const fs::path& path) {
  std::string name = path.filename().string();
  std::string ext = path.extension().string();
  return {name.substr(0, name.size() - ext.size()) + "-", ext};
}

bool IsHealthCheck(std::string_view path) {
  return path == "/healthz" || path == "/livez" || path == "/readyz" || path.starts_with("/healthz/") ||
         path.starts_with("/livez/") || path.starts_with("/readyz/");
}

// kube's utilnet.SourceIPs: the X-Forwarded-For addresses, then the
// connection's peer unless it is the last of them.
json::array SourceIps(const Request& request) {
  json::array ips;
  std::string_view rest = request.forwarded_for;
  while (!rest.empty()) {
    auto comma = rest.find(',');
    std::string_view part = rest.substr(0, comma);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    while (!part.empty() && part.back() == ' ') part.remove_suffix(1);
    if (!part.empty()) ips.emplace_back(part);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  if (!request.remote_address.empty() &&
      (ips.empty() || ips.back().as_string() != request.remote_address)) {
    ips.emplace_back(request.remote_address);
  }
  return ips;
}

std::string RequestUri(const Request& request) {
  if (!request.request_uri.empty()) return request.request_uri;
  std::string uri = request.path;
  for (size_t i = 0; i < request.query.size(); ++i) {
    uri += i == 0 ? '?' : '&';
    uri += request.query[i].first + "=" + request.query[i].second;
  }
  return uri;
}

// The name and namespace a create's body gives its object, in any of the
// request encodings (kube's LogRequestObject completes objectRef from the
// decoded object).
void NameFromBody(const Request& request, const RequestInfo& info, json::object& ref) {
  if (request.body.empty()) return;
  json::value body;
  if (std::string_view(request.content_type).starts_with(kProtobufContentType)) {
    if (!info.kind) return;
    auto decoded = DecodeProtobuf(request.body, *info.kind);
    if (!decoded.ok()) return;
    body = std::move(decoded).value();
  } else if (IsCborContentType(request.content_type)) {
    auto decoded = api::DecodeCbor(request.body);
    if (!decoded.ok()) return;
    body = std::move(decoded).value();
  } else if (IsJsonContentType(request.content_type)) {
    json::error_code ec;
    body = api::ParseJson(request.body, ec);
    if (ec) return;
  }
  if (!body.is_object()) return;
  const json::value* meta = body.as_object().if_contains("metadata");
  if (!meta || !meta->is_object()) return;
  for (std::string_view key : {"namespace", "name"}) {
    const json::value* v = meta->as_object().if_contains(key);
    if (v && v->is_string() && !v->as_string().empty() && !ref.contains(key)) ref[key] = v->as_string();
  }
}

// The fields of an event that the request decides, in kube's order up to
// objectRef.
struct EventBase {
  AuditLog* log;
  std::string id;
  std::string received;
  json::object head;  // requestURI … objectRef
};

EventBase MakeBase(const AuditRecord& record, const Request& request) {
  EventBase base{record.log, record.id, api::FormatMicroTime(record.received), {}};
  auto info = ParseResourcePath(request.path);
  json::object& e = base.head;
  e["requestURI"] = RequestUri(request);
  const std::string verb = KubeVerb(request, info ? &*info : nullptr);
  e["verb"] = verb;
  json::object user;
  json::array groups;
  if (!request.user.empty()) {
    user["username"] = request.user;
    for (const auto& g : request.groups) groups.emplace_back(g);
  } else if (request.trusted) {
    // The API server's own loopback identity in kube.
    user["username"] = "system:apiserver";
    groups = {"system:masters", "system:authenticated"};
  } else {
    user["username"] = "system:anonymous";
    groups.emplace_back("system:unauthenticated");
  }
  user["groups"] = std::move(groups);
  e["user"] = std::move(user);
  json::array ips = SourceIps(request);
  if (!ips.empty()) e["sourceIPs"] = std::move(ips);
  if (!request.user_agent.empty()) e["userAgent"] = request.user_agent;
  if (info) {
    json::object ref;
    ref["resource"] = info->resource;
    if (!info->ns.empty()) ref["namespace"] = info->ns;
    if (!info->name.empty()) ref["name"] = info->name;
    if (verb == "create" && info->name.empty()) NameFromBody(request, *info, ref);
    if (!info->group.empty()) ref["apiGroup"] = info->group;
    ref["apiVersion"] = info->version;
    if (!info->subresource.empty()) ref["subresource"] = info->subresource;
    e["objectRef"] = std::move(ref);
  }
  return base;
}

// kube's responseStatus at Metadata: the code, and for a Status answer its
// status, message, reason and details.
json::object ResponseStatus(int code, const std::string& content_type, const std::string& body) {
  json::object status{{"metadata", json::object{}}};
  if (code >= 300 && content_type.starts_with("application/json")) {
    json::error_code ec;
    json::value v = api::ParseJson(body, ec);
    if (!ec && v.is_object() && v.as_object().contains("kind") && v.as_object().at("kind") == "Status") {
      for (std::string_view key : {"status", "message", "reason", "details"}) {
        if (const json::value* f = v.as_object().if_contains(key)) status[key] = *f;
      }
    }
  }
  status["code"] = code;
  return status;
}

void WriteEvent(const EventBase& base, std::string_view stage, const json::object& response_status) {
  json::object event;
  event.reserve(base.head.size() + 8);
  event["kind"] = "Event";
  event["apiVersion"] = "audit.k8s.io/v1";
  event["level"] = "Metadata";
  event["auditID"] = base.id;
  event["stage"] = stage;
  for (const auto& field : base.head) event[field.key()] = field.value();
  event["responseStatus"] = response_status;
  event["requestReceivedTimestamp"] = base.received;
  event["stageTimestamp"] = api::FormatMicroTime(std::chrono::system_clock::now());
  base.log->Write(json::serialize(event));
}

// A watch's stream with its events: ResponseStarted when it starts,
// ResponseComplete once when it ends (its last chunk, or cancelled).
class AuditedStream : public ResponseStream {
 public:
  AuditedStream(std::shared_ptr<ResponseStream> inner, EventBase base, json::object status)
      : inner_(std::move(inner)), base_(std::move(base)), status_(std::move(status)) {}
  ~AuditedStream() override { Complete(); }
  void Start(std::function<void()> wake) override {
    WriteEvent(base_, "ResponseStarted", status_);
    inner_->Start(std::move(wake));
  }
  Chunk Pump() override {
    Chunk chunk = inner_->Pump();
    if (chunk.end) Complete();
    return chunk;
  }
  std::chrono::milliseconds PollInterval() const override { return inner_->PollInterval(); }
  void Cancel() override {
    inner_->Cancel();
    Complete();
  }

 private:
  void Complete() {
    if (!completed_.exchange(true)) WriteEvent(base_, "ResponseComplete", status_);
  }
  std::shared_ptr<ResponseStream> inner_;
  EventBase base_;
  json::object status_;
  std::atomic<bool> completed_{false};
};

}  // namespace

Result<std::unique_ptr<AuditLog>> AuditLog::Open(AuditLogOptions options) {
  std::unique_ptr<AuditLog> log(new AuditLog(std::move(options)));
  if (log->options_.path == "-") {
    log->fd_ = STDOUT_FILENO;
    return log;
  }
  std::lock_guard lock(log->mu_);
  if (Status s = log->OpenFile(); !s.ok()) return s;
  return log;
}

AuditLog::~AuditLog() {
  if (fd_ >= 0 && fd_ != STDOUT_FILENO) ::close(fd_);
}

Status AuditLog::OpenFile() {
  const fs::path path(options_.path);
  std::error_code ec;
  if (path.has_parent_path()) {
    fs::create_directories(path.parent_path(), ec);
    if (!ec) fs::permissions(path.parent_path(), fs::perms::owner_all, fs::perm_options::replace, ec);
    ec.clear();
  }
  fd_ = ::open(options_.path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd_ < 0) {
    return Status(StatusCode::kUnavailable, "audit log " + options_.path + ": " + std::strerror(errno));
  }
  struct stat st {};
  size_ = ::fstat(fd_, &st) == 0 ? static_cast<int64_t>(st.st_size) : 0;
  return Status::Ok();
}

void AuditLog::Write(std::string_view line) {
  std::string out;
  out.reserve(line.size() + 1);
  out.append(line);
  out.push_back('\n');
  std::lock_guard lock(mu_);
  const bool rotates = fd_ != STDOUT_FILENO && options_.max_size_bytes > 0;
  if (rotates && size_ > 0 && size_ + static_cast<int64_t>(out.size()) > options_.max_size_bytes) Rotate();
  if (fd_ < 0) return;
  size_t done = 0;
  while (done < out.size()) {
    ssize_t n = ::write(fd_, out.data() + done, out.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (!reported_) {
        reported_ = true;
        BERTH_LOG_ERROR(std::string(std::strerror(errno)), "Cannot write the audit log", {"path", options_.path});
      }
      return;
    }
    done += static_cast<size_t>(n);
  }
  size_ += static_cast<int64_t>(out.size());
}

void AuditLog::Rotate() {
  const fs::path path(options_.path);
  auto [prefix, ext] = PrefixAndExtension(path);
  auto now = std::chrono::system_clock::now();
  fs::path backup;
  std::error_code ec;
  // A second rotation within the same millisecond takes the next one.
  for (int i = 0;; ++i) {
    backup = path.parent_path() / (prefix + BackupTime(now + std::chrono::milliseconds(i)) + ext);
    if (!fs::exists(backup, ec) || i > 1000) break;
  }
  ::close(fd_);
  fd_ = -1;
  fs::rename(path, backup, ec);
  if (Status s = OpenFile(); !s.ok() && !reported_) {
    reported_ = true;
    BERTH_LOG_ERROR(s.message(), "Cannot rotate the audit log", {"path", options_.path});
  }
  RemoveOldBackups();
}

void AuditLog::RemoveOldBackups() {
  if (options_.max_backups <= 0 && options_.max_age_days <= 0) return;
  const fs::path path(options_.path);
  auto [prefix, ext] = PrefixAndExtension(path);
  std::vector<std::pair<std::chrono::system_clock::time_point, fs::path>> backups;
  std::error_code ec;
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::string name = entry.path().filename().string();
    if (!name.starts_with(prefix) || !name.ends_with(ext) || name.size() < prefix.size() + ext.size()) continue;
    auto t = ParseBackupTime(std::string_view(name).substr(prefix.size(), name.size() - prefix.size() - ext.size()));
    if (t) backups.emplace_back(*t, entry.path());
  }
  std::sort(backups.begin(), backups.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  const auto cutoff = std::chrono::system_clock::now() - std::chrono::hours(24) * options_.max_age_days;
  for (size_t i = 0; i < backups.size(); ++i) {
    const bool surplus = options_.max_backups > 0 && i >= static_cast<size_t>(options_.max_backups);
    const bool old = options_.max_age_days > 0 && backups[i].first < cutoff;
    if (surplus || old) fs::remove(backups[i].second, ec);
  }
}

AuditRecord BeginAudit(AuditLog* log, const Request& request) {
  AuditRecord record;
  record.log = IsHealthCheck(request.path) ? nullptr : log;
  record.id = request.audit_id.empty() ? RandomUuidV4() : request.audit_id;
  if (record.log) record.received = std::chrono::system_clock::now();
  return record;
}

Response FinishAudit(AuditRecord record, const Request& request, Response response) {
  response.headers.emplace_back("Audit-ID", record.id);
  if (!record.log) return response;
  EventBase base = MakeBase(record, request);
  if (response.when_ready && !response.stream) {
    // The answer goes once ready, as finalize leaves it: so does its event.
    response.finalize = [inner = std::move(response.finalize), base = std::move(base)](Response& held) {
      if (inner) inner(held);
      WriteEvent(base, "ResponseComplete", ResponseStatus(held.status, held.content_type, held.body));
    };
    return response;
  }
  json::object status = ResponseStatus(response.status, response.content_type, response.body);
  if (response.stream) {
    response.stream = std::make_shared<AuditedStream>(std::move(response.stream), std::move(base), std::move(status));
  } else {
    WriteEvent(base, "ResponseComplete", status);
  }
  return response;
}

}  // namespace berth::apiserver
