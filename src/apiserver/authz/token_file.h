#pragma once
// kube-apiserver's static token file (--token-file): one token a line,
// `token,user,uid[,"group1,group2"]`; blank lines and lines starting with
// '#' are skipped.

#include <map>
#include <string>

#include "api/status.h"
#include "apiserver/authz/authentication.h"

namespace berth::apiserver {

// token → the user it authenticates (name, uid and the groups of the fourth
// column). NotFound when the file cannot be read; BadRequest naming the file
// and line of a malformed entry, or a file with no tokens.
Result<std::map<std::string, UserInfo>> ReadTokenFile(const std::string& path);

}  // namespace berth::apiserver
