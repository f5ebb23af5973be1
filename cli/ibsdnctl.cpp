#include "cli/ibsdnctl.hpp"

#include "cli/command_line.hpp"
#include "cli/exit_code.hpp"
#include "cli/response_format.hpp"
#include "plugin/notice/client/notice_client.hpp"

namespace ibsdn::cli {

int run_ibsdnctl(std::span<const std::string> args, const Environment& env, std::ostream& out,
                 std::ostream& err) {
  const CommandLine cl = parse_command_line(args, env, out, err);
  if (!cl.invocation) return to_int(cl.exit_code);
  const Invocation& inv = *cl.invocation;

  const Reply reply = call_controller(inv.socket_path, request_line(inv.request), inv.timeout);
  switch (reply.status) {
    case Reply::Status::kNoAnswer:
      err << "ibsdnctl: " << reply.message << "\n";
      return to_int(ExitCode::kNoAnswer);
    case Reply::Status::kControllerError:
      if (inv.json_output) out << reply.line << "\n";
      err << "ibsdnctl: " << reply.error_code << ": " << reply.message << "\n";
      return to_int(ExitCode::kFailure);
    case Reply::Status::kOk:
      break;
  }

  try {
    const bool differences =
        std::holds_alternative<AuditQuery>(inv.request) && audit_found_differences(reply.response);
    out << (inv.json_output ? reply.line + "\n" : format_response(inv.request, reply.response));
    return to_int(differences ? ExitCode::kFailure : ExitCode::kOk);
  } catch (const MalformedResponse& e) {
    err << "ibsdnctl: " << inv.socket_path << ": malformed response: " << e.what() << "\n";
    return to_int(ExitCode::kNoAnswer);
  }
}

}  // namespace ibsdn::cli
