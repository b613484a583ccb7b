#pragma once
// Errors as values. A Status carries one of Kubernetes' failure reasons so that
// any layer's error can become a v1 Status response without translation.

#include <cassert>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace berth {

enum class StatusCode {
  kOk,
  kBadRequest,             // 400 BadRequest
  kUnauthorized,           // 401 Unauthorized
  kForbidden,              // 403 Forbidden
  kNotFound,               // 404 NotFound
  kMethodNotAllowed,       // 405 MethodNotAllowed
  kNotAcceptable,          // 406 NotAcceptable (no media type the Accept header allows)
  kAlreadyExists,          // 409 AlreadyExists
  kConflict,               // 409 Conflict
  kExpired,                // 410 Expired (revision compacted / watch fell behind)
  kRequestEntityTooLarge,  // 413 RequestEntityTooLarge
  kUnsupportedMediaType,   // 415 UnsupportedMediaType
  kInvalid,                // 422 Invalid (with field causes)
  kTooManyRequests,        // 429 TooManyRequests
  kInternal,               // 500 InternalError
  kUnavailable,            // 503 ServiceUnavailable
  kTimeout,                // 504 Timeout
};

// One field-level problem, as in metav1.StatusCause.
struct StatusCause {
  std::string type;     // "FieldValueInvalid", "FieldValueRequired", ...
  std::string message;  // "Invalid value: \"-1\": must be ..."
  std::string field;    // "spec.containers[0].resources.requests.cpu"
  bool operator==(const StatusCause&) const = default;
};

class Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message, std::vector<StatusCause> causes = {})
      : code_(code), message_(std::move(message)), causes_(std::move(causes)) {}

  static Status Ok() { return {}; }
  static Status BadRequest(std::string m) { return {StatusCode::kBadRequest, std::move(m)}; }
  static Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
  static Status AlreadyExists(std::string m) { return {StatusCode::kAlreadyExists, std::move(m)}; }
  static Status Conflict(std::string m) { return {StatusCode::kConflict, std::move(m)}; }
  static Status Expired(std::string m) { return {StatusCode::kExpired, std::move(m)}; }
  static Status Invalid(std::string m, std::vector<StatusCause> causes = {}) {
    return {StatusCode::kInvalid, std::move(m), std::move(causes)};
  }
  static Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }
  static Status Unavailable(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  const std::vector<StatusCause>& causes() const { return causes_; }

  // Kubernetes' StatusReason string ("NotFound", "Conflict", ...); "" when ok.
  std::string_view Reason() const;
  // The HTTP status code Kubernetes uses for this reason; 200 when ok.
  int HttpCode() const;
  std::string ToString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
  std::vector<StatusCause> causes_;
};

// A value or the Status explaining why there is none.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Result(Status status) : v_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    assert(!std::get<Status>(v_).ok());
  }

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  // REQUIRES: ok().
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace berth
