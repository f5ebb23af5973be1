// Column-aligned text for the tables ibsdnctl prints (jobs, links, audit, ...). Columns are
// separated by two spaces; numbers read best right-aligned, names left-aligned. No trailing
// blanks, so that `awk` and `diff` see the same fields a person does.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace ibsdn::cli {

enum class Align : unsigned char { kLeft, kRight };

class TextTable {
 public:
  explicit TextTable(std::vector<Align> columns, std::string indent = {});

  /// A row with exactly one cell per column.
  void add_row(std::vector<std::string> cells);
  /// The rows, each padded to the widest cell of its column and ended by '\n'.
  [[nodiscard]] std::string render() const;

 private:
  std::vector<Align> columns_;
  std::string indent_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace ibsdn::cli
