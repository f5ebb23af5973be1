#include "plugin/controller/log_codes.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace ibsdn {
namespace {

std::string source_file(const std::string& relative) {
  std::ifstream in(std::string(IBSDN_SOURCE_DIR) + "/" + relative);
  EXPECT_TRUE(in) << "cannot read " << relative;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Every code `pattern`'s first group finds in `text` (hex digits), counted in `matches`.
std::multiset<std::uint16_t> codes_in(const std::string& text, const std::string& pattern) {
  std::multiset<std::uint16_t> out;
  const std::regex re(pattern);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator();
       ++it) {
    out.insert(static_cast<std::uint16_t>(std::stoul((*it)[1].str(), nullptr, 16)));
  }
  return out;
}

std::set<std::uint16_t> controller_codes() {
  std::set<std::uint16_t> out;
  for (const LogCode c : kLogCodes) out.insert(static_cast<std::uint16_t>(c));
  return out;
}

/// The C glue's codes, from its header (C, with OpenSM's headers: not includable here).
std::multiset<std::uint16_t> glue_codes() {
  return codes_in(source_file("plugin/opensm/glue/glue.h"), R"(GLUE_ERR_\w+ = 0x(5D[0-9A-F]{2}))");
}

TEST(LogCodes, AreUniqueAndCarryIbsdnsPrefix) {
  EXPECT_EQ(controller_codes().size(), kLogCodes.size()) << "a code is listed twice";
  for (const LogCode c : kLogCodes) {
    EXPECT_EQ(static_cast<std::uint16_t>(c) & 0xFF00, 0x5D00) << to_string(c);
    EXPECT_TRUE(std::regex_match(to_string(c), std::regex("ERR 5D[0-9A-F]{2}"))) << to_string(c);
  }
}

TEST(LogCodes, ListHoldsEveryCodeTheEnumDefines) {
  const std::multiset<std::uint16_t> defined =
      codes_in(source_file("plugin/controller/log_codes.hpp"), R"(\n  k\w+ = 0x(5D[0-9A-F]{2}),)");
  EXPECT_EQ(std::set<std::uint16_t>(defined.begin(), defined.end()), controller_codes());
  EXPECT_EQ(defined.size(), kLogCodes.size()) << "two enumerators share a code";
}

TEST(LogCodes, GlueHasItsOwn5D0xCodes) {
  const std::multiset<std::uint16_t> glue = glue_codes();
  ASSERT_FALSE(glue.empty());
  EXPECT_EQ(std::set<std::uint16_t>(glue.begin(), glue.end()).size(), glue.size());
  for (const std::uint16_t c : glue) {
    EXPECT_EQ(c & 0xFFF0, 0x5D00) << std::hex << c;
    EXPECT_FALSE(controller_codes().contains(c)) << std::hex << c;
  }
}

// docs/operations.md has one row per code: what it means, what the operator does.
TEST(LogCodes, EveryCodeHasExactlyOneRowInTheOperationsGuide) {
  const std::string doc = source_file("docs/operations.md");
  const std::multiset<std::uint16_t> rows = codes_in(doc, R"(\n\| `ERR (5D[0-9A-F]{2})` \|)");
  std::multiset<std::uint16_t> want(glue_codes());
  for (const std::uint16_t c : controller_codes()) want.insert(c);
  EXPECT_EQ(rows, want);
}

TEST(LogCodes, ErrorLine_StartsWithTheCodeAsOpenSmPrintsIt) {
  EXPECT_EQ(to_string(LogCode::kPollFailed), "ERR 5D81");
  EXPECT_EQ(error_line(LogCode::kPollFailed, "poll failed: Bad address"),
            "ERR 5D81: poll failed: Bad address");
}

TEST(LogCodes, InContext_GoesAfterTheCode) {
  EXPECT_EQ(in_context("notice socket: ", "ERR 5D81: poll failed"),
            "ERR 5D81: notice socket: poll failed");
  EXPECT_EQ(in_context("notice socket: ", "listening"), "notice socket: listening");
  // Not a code: 4 hex digits and ": " make one.
  EXPECT_EQ(in_context("c: ", "ERR 5DXY: m"), "c: ERR 5DXY: m");
  EXPECT_EQ(in_context("c: ", "ERR 5D8"), "c: ERR 5D8");
}

}  // namespace
}  // namespace ibsdn
