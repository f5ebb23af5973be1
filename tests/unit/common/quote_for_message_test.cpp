#include "common/quote_for_message.hpp"

#include <gtest/gtest.h>

#include <string>

namespace ibsdn {
namespace {

TEST(QuoteForMessage, QuotesPrintableTextAsItIs) {
  EXPECT_EQ(quote_for_message("node01 HCA-1"), "'node01 HCA-1'");
  EXPECT_EQ(quote_for_message(""), "''");
}

TEST(QuoteForMessage, EscapesControlAndNonAsciiBytes) {
  EXPECT_EQ(quote_for_message(std::string("a\tb\nc\x7f", 6)), "'a\\x09b\\x0ac\\x7f'");
  EXPECT_EQ(quote_for_message(std::string("\0x", 2)), "'\\x00x'");
  EXPECT_EQ(quote_for_message("h\xc3\xa9llo"), "'h\\xc3\\xa9llo'");
}

TEST(QuoteForMessage, EscapesBackslashAndItsOwnQuoteOnly) {
  EXPECT_EQ(quote_for_message("it's a\\b \"x\""), "'it\\x27s a\\x5cb \"x\"'");
  EXPECT_EQ(quote_for_message("it's \"x\"", kMaxQuotedChars, '"'), "\"it's \\x22x\\x22\"");
}

TEST(QuoteForMessage, CutsAfterMaxCharsInsideTheQuotes) {
  const std::string long_text(kMaxQuotedChars + 1, 'x');
  EXPECT_EQ(quote_for_message(long_text), "'" + std::string(kMaxQuotedChars, 'x') + "...'");
  EXPECT_EQ(quote_for_message(std::string(kMaxQuotedChars, 'x')),
            "'" + std::string(kMaxQuotedChars, 'x') + "'");
  EXPECT_EQ(quote_for_message("abcdef", 3), "'abc...'");
}

TEST(QuoteForMessage, GivesPrintableAsciiWhateverTheBytes) {
  std::string all;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  const std::string q = quote_for_message(all, all.size());
  for (const char c : q) {
    EXPECT_TRUE(c >= 0x20 && c < 0x7F) << static_cast<int>(static_cast<unsigned char>(c));
  }
}

}  // namespace
}  // namespace ibsdn
