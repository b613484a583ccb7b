#pragma once
// Go's strconv.ParseBool, as kube reads booleans written as text (query
// parameters, annotations): 1, t, T, TRUE, true, True; 0, f, F, FALSE,
// false, False. Anything else is not a boolean (nullopt).

#include <optional>
#include <string_view>

namespace berth::api {

std::optional<bool> ParseGoBool(std::string_view text);

}  // namespace berth::api
