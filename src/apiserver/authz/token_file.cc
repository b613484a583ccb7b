#include "apiserver/authz/token_file.h"

#include <fstream>
#include <vector>

namespace berth::apiserver {

namespace {

// One CSV record as Go's encoding/csv reads it: fields split at commas, a
// field in double quotes may hold commas and "" for a quote.
std::vector<std::string> SplitCsv(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"' && fields.back().empty()) {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else if (c != '\r') {
      fields.back() += c;
    }
  }
  return fields;
}

}  // namespace

Result<std::map<std::string, UserInfo>> ReadTokenFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::NotFound("--token-file " + path + ": cannot be read");
  std::map<std::string, UserInfo> tokens;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields = SplitCsv(line);
    if (fields.size() < 3 || fields[0].empty() || fields[1].empty()) {
      return Status::BadRequest("--token-file " + path + ":" + std::to_string(number) +
                                ": expected token,user,uid[,\"groups\"]");
    }
    UserInfo user{fields[1], fields[2], {}};
    if (fields.size() > 3) {
      // kube's tokenfile: the fourth column is a comma-separated group list.
      std::string group;
      for (char c : fields[3] + ",") {
        if (c != ',') {
          group += c;
        } else if (!group.empty()) {
          user.groups.push_back(std::move(group));
          group.clear();
        }
      }
    }
    tokens[fields[0]] = std::move(user);
  }
  if (tokens.empty()) return Status::BadRequest("--token-file " + path + ": no tokens");
  return tokens;
}

}  // namespace berth::apiserver
