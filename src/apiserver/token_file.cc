#include "apiserver/token_file.h"

#include <fstream>
#include <sstream>
#include <vector>

namespace berth::apiserver {

Result<std::map<std::string, std::string>> ReadTokenFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::NotFound("--token-file " + path + ": cannot be read");
  std::map<std::string, std::string> tokens;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    std::stringstream ss(line);
    std::string field;
    while (std::getline(ss, field, ',')) fields.push_back(field);
    if (fields.size() < 3 || fields[0].empty() || fields[1].empty()) {
      return Status::BadRequest("--token-file " + path + ":" + std::to_string(number) +
                                ": expected token,user,uid[,\"groups\"]");
    }
    tokens[fields[0]] = fields[1];
  }
  if (tokens.empty()) return Status::BadRequest("--token-file " + path + ": no tokens");
  return tokens;
}

}  // namespace berth::apiserver
