// The "FILE:LINE: what" error of the line-oriented text formats the project reads (ibsim netlists,
// OpenSM's dumps, SWF job traces, flow cases), the splitter that numbers those lines and the one
// that splits a line into fields; the untrusted text such an error shows is quoted with
// quote_for_message.hpp. Header only: routing/ and sim_backend/ use it without linking anything.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ibsdn {

/// A malformed input line. what() reads "SOURCE:LINE: what was wrong"; line() is 1-based.
class FileLineError : public std::invalid_argument {
 public:
  FileLineError(std::string_view source, std::size_t line, std::string_view what)
      : std::invalid_argument(std::string(source) + ":" + std::to_string(line) + ": " +
                              std::string(what)),
        line_(line) {}
  [[nodiscard]] std::size_t line() const { return line_; }

 private:
  std::size_t line_;
};

/// Splits a line into fields separated by spaces and tabs: stores the first out.size() fields in
/// `out` and returns how many the line has in all.
inline std::size_t split_fields(std::string_view line, std::span<std::string_view> out) {
  const auto blank = [](char c) { return c == ' ' || c == '\t'; };
  std::size_t count = 0;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && blank(line[i])) ++i;
    if (i == line.size()) break;
    const std::size_t start = i;
    while (i < line.size() && !blank(line[i])) ++i;
    if (count < out.size()) out[count] = line.substr(start, i - start);
    ++count;
  }
  return count;
}

/// Splits text into lines (without '\n' or a trailing '\r'), numbering them from 1.
class TextLines {
 public:
  explicit TextLines(std::string_view text) : text_(text) {}
  bool next(std::string_view& line) {
    if (pos_ >= text_.size()) return false;
    const std::size_t end = std::min(text_.find('\n', pos_), text_.size());
    line = text_.substr(pos_, end - pos_);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos_ = end + 1;
    ++number_;
    return true;
  }
  [[nodiscard]] std::size_t number() const { return number_; }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
  std::size_t number_ = 0;
};

}  // namespace ibsdn
