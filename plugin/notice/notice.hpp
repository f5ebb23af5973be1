// The notice protocol: JSON lines over the controller's Unix socket (docs/notice-protocol.md).
//
// A client writes one request per line and reads one response per line. Every message carries
// "v": 1. parse_request() turns a line into a typed Request or a RequestError whose message says
// what was wrong and where (a JSON pointer such as /nodes/3); it never throws. The response
// builders produce the JSON the controller writes back; to_line() serialises one.
//
// This header brings the whole protocol; each part has its own: version.hpp, limits.hpp,
// error_code.hpp, request.hpp, response.hpp (and names.hpp, the syntax of names).
#pragma once

#include "plugin/notice/error_code.hpp"
#include "plugin/notice/limits.hpp"
#include "plugin/notice/request.hpp"
#include "plugin/notice/response.hpp"
#include "plugin/notice/version.hpp"
