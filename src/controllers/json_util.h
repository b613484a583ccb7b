#pragma once
// FORWARDING HEADER, kept only for src/cmd (controller_runtime.cc and
// serve_cmd.cc call controllers::ParseGoDuration). Include api/duration.h and
// call api::ParseGoDuration instead; delete this file once src/cmd does.

#include "api/duration.h"

namespace berth::controllers {

using api::ParseGoDuration;

}  // namespace berth::controllers
