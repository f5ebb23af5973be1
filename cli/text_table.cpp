#include "cli/text_table.hpp"

#include <algorithm>
#include <cassert>
#include <utility>

namespace ibsdn::cli {

TextTable::TextTable(std::vector<Align> columns, std::string indent)
    : columns_(std::move(columns)), indent_(std::move(indent)) {}

void TextTable::add_row(std::vector<std::string> cells) {
  assert(cells.size() == columns_.size());
  rows_.push_back(std::move(cells));
}

std::string TextTable::render() const {
  std::vector<std::size_t> width(columns_.size(), 0);
  for (const auto& row : rows_) {
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  std::string out;
  for (const auto& row : rows_) {
    std::string line = indent_;
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (c > 0) line += "  ";
      const std::string pad(width[c] - row[c].size(), ' ');
      line += columns_[c] == Align::kRight ? pad + row[c] : row[c] + pad;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line;
    out += '\n';
  }
  return out;
}

}  // namespace ibsdn::cli
