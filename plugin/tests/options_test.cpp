#include <gtest/gtest.h>

#include <stdexcept>

#include "plugin/options.hpp"

namespace ibsdn::plugin {
namespace {

TEST(PluginOptions, EmptyTextGivesTheDefaults) {
  const Options o = parse_options("");
  EXPECT_EQ(o.key, 0u);
  EXPECT_EQ(o.mad_timeout.count(), 1000);
  EXPECT_TRUE(o.poll_table_info);
  EXPECT_EQ(o.retry.count(), 10000);
}

TEST(PluginOptions, ParsesCommaAndSpaceSeparatedPairs) {
  const Options o = parse_options("key=0x5EED,mad_timeout_ms=250 poll_table_info=0,retry_ms=0");
  EXPECT_EQ(o.key, 0x5eedu);
  EXPECT_EQ(o.mad_timeout.count(), 250);
  EXPECT_FALSE(o.poll_table_info);
  EXPECT_EQ(o.retry.count(), 0);
  EXPECT_EQ(parse_options("key=ffffffffffffffff").key, ~std::uint64_t{0});
}

TEST(PluginOptions, RejectsUnknownAndMalformedPairsNamingThem) {
  const auto message = [](const char* text) {
    try {
      parse_options(text);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message("colour=blue").find("unknown option 'colour'"), std::string::npos);
  EXPECT_NE(message("key").find("'key' is not key=value"), std::string::npos);
  EXPECT_NE(message("key=0xZZ").find("'key=0xZZ'"), std::string::npos);
  EXPECT_NE(message("key=1ffffffffffffffff").find("hex"), std::string::npos);
  EXPECT_NE(message("mad_timeout_ms=0").find("1..60000"), std::string::npos);
  EXPECT_NE(message("mad_timeout_ms=-5").find("decimal"), std::string::npos);
  EXPECT_NE(message("poll_table_info=yes").find("0 or 1"), std::string::npos);
  EXPECT_NE(message("retry_ms=3600001").find("0..3600000"), std::string::npos);
}

TEST(PluginOptions, ToStringParsesBackToTheSameOptions) {
  const Options o = parse_options("key=0xabc,mad_timeout_ms=42,poll_table_info=0,retry_ms=7");
  const Options back = parse_options(o.to_string());
  EXPECT_EQ(back.key, o.key);
  EXPECT_EQ(back.mad_timeout, o.mad_timeout);
  EXPECT_EQ(back.poll_table_info, o.poll_table_info);
  EXPECT_EQ(back.retry, o.retry);
}

}  // namespace
}  // namespace ibsdn::plugin
