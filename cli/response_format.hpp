// What ibsdnctl prints for each kind of response: the tables and summaries an operator reads.
// `flows` matches `ovs-ofctl dump-flows`; the others are column-aligned tables (text_table.hpp).
//
// Every formatter reads the JSON built by plugin/controller/notice.cpp's response builders and
// throws MalformedResponse, naming the JSON pointer, when a field is missing or of the wrong type.
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "plugin/notice/notice.hpp"

namespace ibsdn::cli {

class MalformedResponse : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string format_pong(const nlohmann::json& response);
/// The answer to job start, phase begin and hint.
std::string format_ready(const nlohmann::json& response);
std::string format_jobs(const nlohmann::json& response);
std::string format_flows(const nlohmann::json& response);
std::string format_links(const nlohmann::json& response);
std::string format_route(const nlohmann::json& response);
std::string format_audit(const nlohmann::json& response);
std::string format_stats(const nlohmann::json& response);
/// "job N ended: K entries removed" and the warnings of switches that did not answer.
std::string format_job_end(const nlohmann::json& response);

/// The quarantined jobs: id, when, entries kept and on the switches, reason.
std::string format_quarantine(const nlohmann::json& response);
/// What a release did to the job's entries on the switches, said explicitly either way.
std::string format_quarantine_release(const nlohmann::json& response);

/// True when an audit response reports findings (ibsdnctl then exits with 1).
bool audit_found_differences(const nlohmann::json& response);

/// The text for the successful response to `request`; empty for the bare {"ok": true} answers
/// (job end, phase end), which print nothing, like ovs-ofctl's del-flows.
std::string format_response(const Request& request, const nlohmann::json& response);

}  // namespace ibsdn::cli
