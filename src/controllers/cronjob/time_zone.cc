#include "controllers/cronjob/time_zone.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>

namespace berth::controllers {

namespace {

constexpr int kLastRuleYear = 2200;

int64_t DaysFromCivil(int year, unsigned month, unsigned day) {
  using namespace std::chrono;
  return sys_days{std::chrono::year{year} / std::chrono::month{month} / std::chrono::day{day}}
      .time_since_epoch()
      .count();
}

bool IsLeap(int year) { return std::chrono::year{year}.is_leap(); }

int YearOf(int64_t seconds) {
  using namespace std::chrono;
  const auto days =
      sys_days{std::chrono::days{seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400}};
  return static_cast<int>(year_month_day{days}.year());
}

// Big-endian integers of a TZif file.
class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}
  bool Has(size_t n) const { return data_.size() - pos_ >= n; }
  int64_t Int(size_t width) {
    uint64_t v = 0;
    for (size_t i = 0; i < width; ++i) v = (v << 8) | static_cast<unsigned char>(data_[pos_ + i]);
    pos_ += width;
    if (width == 4) return static_cast<int32_t>(static_cast<uint32_t>(v));
    return static_cast<int64_t>(v);
  }
  uint8_t Byte() { return static_cast<unsigned char>(data_[pos_++]); }
  void Skip(size_t n) { pos_ += n; }
  std::string_view Rest() const { return data_.substr(pos_); }

 private:
  std::string_view data_;
  size_t pos_ = 0;
};

// A POSIX TZ rule: "std offset [dst [offset] [,start[/time],end[/time]]]".
struct PosixRule {
  struct Date {
    char form = 'M';  // 'J' (1-365, no Feb 29), 'N' (0-365), 'M' (month.week.weekday)
    int day = 0, week = 0, month = 0;
    int32_t time = 2 * 3600;  // local time of day of the change
  };
  int32_t std_offset = 0, dst_offset = 0;  // seconds east of UTC
  bool has_dst = false;
  Date start, end;
};

class RuleParser {
 public:
  explicit RuleParser(std::string_view s) : s_(s) {}

  std::optional<PosixRule> Parse() {
    PosixRule rule;
    if (!Name()) return std::nullopt;
    auto std_offset = Offset();
    if (!std_offset) return std::nullopt;
    rule.std_offset = -*std_offset;  // POSIX counts west of UTC
    if (Done()) return rule;
    if (!Name()) return std::nullopt;
    rule.has_dst = true;
    rule.dst_offset = rule.std_offset + 3600;
    if (!Done() && Peek() != ',') {
      auto dst_offset = Offset();
      if (!dst_offset) return std::nullopt;
      rule.dst_offset = -*dst_offset;
    }
    if (Done()) {
      // No dates: the US rules POSIX falls back to.
      rule.start = {'M', 0, 2, 3};
      rule.end = {'M', 0, 1, 11};
      return rule;
    }
    if (Peek() != ',') return std::nullopt;
    ++i_;
    auto start = RuleDate();
    if (!start || Done() || Peek() != ',') return std::nullopt;
    ++i_;
    auto end = RuleDate();
    if (!end || !Done()) return std::nullopt;
    rule.start = *start;
    rule.end = *end;
    return rule;
  }

 private:
  bool Done() const { return i_ >= s_.size(); }
  char Peek() const { return s_[i_]; }

  bool Name() {
    if (!Done() && Peek() == '<') {
      size_t close = s_.find('>', i_);
      if (close == std::string_view::npos) return false;
      i_ = close + 1;
      return true;
    }
    size_t begin = i_;
    while (!Done() && std::isalpha(static_cast<unsigned char>(Peek()))) ++i_;
    return i_ - begin >= 3;
  }

  std::optional<int> Number() {
    size_t begin = i_;
    int v = 0;
    while (!Done() && std::isdigit(static_cast<unsigned char>(Peek())))
      v = v * 10 + (s_[i_++] - '0');
    if (i_ == begin) return std::nullopt;
    return v;
  }

  // [+-]hh[:mm[:ss]] in seconds.
  std::optional<int32_t> Offset() {
    int sign = 1;
    if (!Done() && (Peek() == '+' || Peek() == '-')) sign = s_[i_++] == '-' ? -1 : 1;
    auto hours = Number();
    if (!hours) return std::nullopt;
    int32_t total = *hours * 3600;
    for (int unit : {60, 1}) {
      if (Done() || Peek() != ':') break;
      ++i_;
      auto part = Number();
      if (!part) return std::nullopt;
      total += *part * unit;
    }
    return sign * total;
  }

  std::optional<PosixRule::Date> RuleDate() {
    PosixRule::Date d;
    if (!Done() && Peek() == 'J') {
      ++i_;
      auto n = Number();
      if (!n || *n < 1 || *n > 365) return std::nullopt;
      d.form = 'J';
      d.day = *n;
    } else if (!Done() && Peek() == 'M') {
      ++i_;
      auto month = Number();
      if (!month || Done() || Peek() != '.') return std::nullopt;
      ++i_;
      auto week = Number();
      if (!week || Done() || Peek() != '.') return std::nullopt;
      ++i_;
      auto weekday = Number();
      if (!weekday || *month < 1 || *month > 12 || *week < 1 || *week > 5 || *weekday > 6)
        return std::nullopt;
      d.form = 'M';
      d.month = *month;
      d.week = *week;
      d.day = *weekday;
    } else {
      auto n = Number();
      if (!n || *n > 365) return std::nullopt;
      d.form = 'N';
      d.day = *n;
    }
    if (!Done() && Peek() == '/') {
      ++i_;
      auto time = Offset();  // hours may exceed 24 or be negative (RFC 8536)
      if (!time) return std::nullopt;
      d.time = *time;
    }
    return d;
  }

  std::string_view s_;
  size_t i_ = 0;
};

// Seconds from the start of `year` (local) to the rule date's change.
int64_t LocalSecondsIntoYear(const PosixRule::Date& d, int year) {
  int64_t day = 0;  // zero-based day of the year
  switch (d.form) {
    case 'J':
      day = d.day - 1 + ((IsLeap(year) && d.day >= 60) ? 1 : 0);
      break;
    case 'N':
      day = d.day;
      break;
    default: {
      using namespace std::chrono;
      const int64_t first = DaysFromCivil(year, static_cast<unsigned>(d.month), 1);
      const int first_weekday =
          static_cast<int>(weekday{sys_days{std::chrono::days{first}}}.c_encoding());
      int64_t dom = (d.day - first_weekday + 7) % 7 + 7 * (d.week - 1);
      const auto last = static_cast<unsigned>(year_month_day_last{
          std::chrono::year{year}, month_day_last{std::chrono::month{static_cast<unsigned>(
                                       d.month)}}}.day());
      while (dom >= last) dom -= 7;
      day = first + dom - DaysFromCivil(year, 1, 1);
    }
  }
  return day * 86400 + d.time;
}

std::mutex cache_mu;
std::map<std::string, std::shared_ptr<const TimeZone>, std::less<>>& Cache() {
  static auto* cache = new std::map<std::string, std::shared_ptr<const TimeZone>, std::less<>>();
  return *cache;
}

}  // namespace

std::shared_ptr<const TimeZone> TimeZone::Utc() {
  static const std::shared_ptr<const TimeZone> utc = [] {
    std::shared_ptr<TimeZone> z(new TimeZone());
    z->name_ = "UTC";
    return z;
  }();
  return utc;
}

Result<std::shared_ptr<const TimeZone>> TimeZone::Load(std::string_view name,
                                                       const std::string& root) {
  if (name.empty() || name == "UTC") return Utc();
  const Status unknown = Status::NotFound("unknown time zone " + std::string(name));
  // Names are paths below the root, never out of it (Go's containsDotDot).
  if (name.front() == '/' || name.find("..") != std::string_view::npos) return unknown;
  const std::string key = root + "/" + std::string(name);
  {
    std::lock_guard<std::mutex> lock(cache_mu);
    if (auto it = Cache().find(key); it != Cache().end()) return it->second;
  }
  std::ifstream in(key, std::ios::binary);
  if (!in) return unknown;
  std::ostringstream bytes;
  bytes << in.rdbuf();
  auto zone = FromTzif(std::string(name), bytes.str());
  if (!zone.ok()) return unknown;
  std::lock_guard<std::mutex> lock(cache_mu);
  Cache().emplace(key, zone.value());
  return zone;
}

Result<std::shared_ptr<const TimeZone>> TimeZone::FromTzif(std::string name,
                                                           std::string_view data) {
  const Status bad = Status::BadRequest("malformed time zone file for " + name);
  Reader r(data);
  if (!r.Has(44) || data.substr(0, 4) != "TZif") return bad;
  r.Skip(4);
  const uint8_t version = r.Byte();
  r.Skip(15);
  auto counts = [&r] {
    std::vector<int64_t> c(6);
    for (auto& v : c) v = r.Int(4);
    return c;
  };
  std::vector<int64_t> c = counts();  // isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt
  size_t width = 4;
  if (version >= '2') {
    // Skip the 32-bit block for the 64-bit one that follows.
    const size_t v1 = c[3] * 5 + c[4] * 6 + c[5] + c[2] * 8 + c[1] + c[0];
    if (!r.Has(v1 + 44)) return bad;
    r.Skip(v1 + 20);
    c = counts();
    width = 8;
  }
  const int64_t isut = c[0], isstd = c[1], leaps = c[2], times = c[3], types = c[4], chars = c[5];
  if (types < 1 || times < 0 ||
      !r.Has(times * (width + 1) + types * 6 + chars + leaps * (width + 4) + isstd + isut)) {
    return bad;
  }
  std::shared_ptr<TimeZone> z(new TimeZone());
  z->name_ = std::move(name);
  std::vector<int64_t> at(times);
  for (auto& t : at) t = r.Int(width);
  std::vector<uint8_t> index(times);
  for (auto& i : index) i = r.Byte();
  std::vector<int32_t> type_offset(types);
  std::vector<bool> type_dst(types);
  for (int64_t i = 0; i < types; ++i) {
    type_offset[i] = static_cast<int32_t>(r.Int(4));
    type_dst[i] = r.Byte() != 0;
    r.Skip(1);
  }
  r.Skip(chars + leaps * (width + 4) + isstd + isut);
  for (int64_t i = 0; i < times; ++i) {
    if (index[i] >= types) return bad;
    z->at_.push_back(at[i]);
    z->offset_.push_back(type_offset[index[i]]);
  }
  // Before the first transition: the first standard-time type (Go's lookupFirstZone).
  z->initial_offset_ = type_offset[0];
  for (int64_t i = 0; i < types; ++i) {
    if (!type_dst[i]) {
      z->initial_offset_ = type_offset[i];
      break;
    }
  }
  if (width == 8) {
    std::string_view footer = r.Rest();
    if (footer.size() >= 2 && footer.front() == '\n') {
      footer.remove_prefix(1);
      footer = footer.substr(0, footer.find('\n'));
      if (!footer.empty()) {
        if (Status s = z->ExtendWithRule(footer); !s.ok()) return bad;
      }
    }
  }
  return std::shared_ptr<const TimeZone>(std::move(z));
}

Result<std::shared_ptr<const TimeZone>> TimeZone::FromPosixRule(std::string name,
                                                                std::string_view rule) {
  std::shared_ptr<TimeZone> z(new TimeZone());
  z->name_ = std::move(name);
  if (Status s = z->ExtendWithRule(rule); !s.ok()) return s;
  return std::shared_ptr<const TimeZone>(std::move(z));
}

Status TimeZone::ExtendWithRule(std::string_view text) {
  auto rule = RuleParser(text).Parse();
  if (!rule) return Status::BadRequest("malformed TZ rule \"" + std::string(text) + "\"");
  if (!rule->has_dst) {
    // From the last transition on, the rule governs (as in Go's lookup).
    if (at_.empty()) {
      initial_offset_ = rule->std_offset;
    } else {
      offset_.back() = rule->std_offset;
    }
    return Status::Ok();
  }
  const int64_t last = at_.empty() ? INT64_MIN : at_.back();
  const int first_year = at_.empty() ? 1970 : YearOf(last);
  if (at_.empty()) initial_offset_ = rule->std_offset;
  for (int year = first_year; year <= kLastRuleYear; ++year) {
    const int64_t year_start = DaysFromCivil(year, 1, 1) * 86400;
    // The change to summer time happens at a standard-time clock reading,
    // the change back at a summer-time one.
    const int64_t to_dst = year_start + LocalSecondsIntoYear(rule->start, year) - rule->std_offset;
    const int64_t to_std = year_start + LocalSecondsIntoYear(rule->end, year) - rule->dst_offset;
    std::pair<int64_t, int32_t> changes[2] = {{to_dst, rule->dst_offset},
                                              {to_std, rule->std_offset}};
    if (changes[1].first < changes[0].first)
      std::swap(changes[0], changes[1]);  // southern hemisphere
    for (const auto& [when, offset] : changes) {
      if (when <= last || (!at_.empty() && when <= at_.back())) continue;
      at_.push_back(when);
      offset_.push_back(offset);
    }
  }
  return Status::Ok();
}

TimeZone::Period TimeZone::Lookup(int64_t utc) const {
  auto it = std::upper_bound(at_.begin(), at_.end(), utc);
  Period p;
  if (it == at_.begin()) {
    p.offset = initial_offset_;
    if (!at_.empty()) p.end = at_.front();
    return p;
  }
  const size_t i = static_cast<size_t>(it - at_.begin()) - 1;
  p.offset = offset_[i];
  p.start = at_[i];
  if (i + 1 < at_.size()) p.end = at_[i + 1];
  return p;
}

int64_t TimeZone::FromLocal(int64_t local) const {
  const Period guess = Lookup(local);
  int32_t offset = guess.offset;
  const int64_t utc = local - offset;
  if (utc < guess.start || utc >= guess.end) offset = Lookup(utc).offset;
  return local - offset;
}

}  // namespace berth::controllers
