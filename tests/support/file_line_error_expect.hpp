// The check every text reader's malformed-input test makes of a FileLineError
// (common/file_line_error.hpp): refused with the right exception, "FILE:LINE: " first, the line
// number kept, and the message saying what was wrong.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <string>

#include "common/file_line_error.hpp"

namespace ibsdn::testing_errors {

/// Runs `read`, which must throw `Error` naming `file` and `line` and containing `message`.
template <typename Error, typename Read>
void expect_file_line_error(Read&& read, const std::string& file, std::size_t line,
                            const std::string& message) {
  try {
    read();
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    const FileLineError& base = e;
    const std::string msg = base.what();
    EXPECT_EQ(base.line(), line) << msg;
    EXPECT_EQ(msg.rfind(file + ":" + std::to_string(line) + ": ", 0), 0u) << msg;
    EXPECT_NE(msg.find(message), std::string::npos) << msg;
  }
}

}  // namespace ibsdn::testing_errors
