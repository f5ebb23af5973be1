#include <gtest/gtest.h>

#include <stdexcept>

#include "plugin/opensm/options.hpp"

namespace ibsdn::plugin {
namespace {

std::string message_of(const char* text) {
  try {
    parse_options(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "accepted";
}

TEST(PluginOptions, EmptyTextMeansTheDefaultConfigFile) {
  EXPECT_FALSE(parse_options("").config.has_value());
  EXPECT_FALSE(parse_options(" , ").config.has_value());
}

TEST(PluginOptions, ParsesTheConfigPath) {
  EXPECT_EQ(parse_options("config=/etc/ibsdn.yaml").config, "/etc/ibsdn.yaml");
  EXPECT_EQ(parse_options(" config=/x/y.yaml, ").config, "/x/y.yaml");
}

TEST(PluginOptions, RejectsUnknownRelativeRepeatedAndMalformedPairsNamingThem) {
  EXPECT_NE(message_of("colour=blue").find("unknown option 'colour'"), std::string::npos);
  // The options of earlier versions moved into the YAML file: say so.
  EXPECT_NE(message_of("key=0x5eed").find("YAML configuration file"), std::string::npos);
  EXPECT_NE(message_of("config").find("'config' is not key=value"), std::string::npos);
  EXPECT_NE(message_of("config=ibsdn.yaml").find("absolute path"), std::string::npos);
  EXPECT_NE(message_of("config=").find("absolute path"), std::string::npos);
  EXPECT_NE(message_of("config=/a,config=/b").find("twice"), std::string::npos);
}

TEST(PluginOptions, ToStringNamesTheFileInUse) {
  EXPECT_EQ(parse_options("config=/a.yaml").to_string(), "config=/a.yaml");
  EXPECT_NE(parse_options("").to_string().find(kDefaultConfigPath), std::string::npos);
}

}  // namespace
}  // namespace ibsdn::plugin
