#include "sim_backend/run/plot_script.hpp"

#include <algorithm>
#include <sstream>

#include "sim_backend/run/static_report.hpp"

namespace ibsdn {

/// A gnuplot double-quoted string: backslash and quote escaped, a line break as \n, other
/// control characters as spaces. (Macros are not expanded inside quotes, so '@' is safe.)
std::string gp_quote(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (u < 0x20 || u == 0x7f) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out + "\"";
}

/// Text for a comment line of a script or data file: one line.
std::string one_line(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) c = ' ';
  }
  return out;
}

/// `segments` joined by " | ", a new line where the next would pass `width`.
std::vector<std::string> pack(const std::vector<std::string>& segments, std::size_t width) {
  std::vector<std::string> lines;
  std::string line;
  for (const std::string& s : segments) {
    if (!line.empty() && line.size() + 3 + s.size() > width) {
      lines.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : " | ") + s;
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

std::string script_head(const Scenario& s, const std::string& base, std::string_view what,
                        const std::vector<std::string>& data_notes) {
  std::string h = "# ibsdn-sim run: scenario " + s.name() + " hash " + s.hash_text() + "\n";
  h += "# " + one_line(what) + "\n";
  h += "# Render in this directory: gnuplot " + base + ".gp (writes " + base + ".png and " + base +
       ".svg).\n";
  for (const std::string& n : data_notes) h += "# " + one_line(n) + "\n";
  h += "reset\nset encoding utf8\n";
  return h;
}

/// Sets the terminal for each format and runs `body` (plot commands) once per image.
std::string render_loop(const std::string& base, int width, int height, const std::string& body) {
  const std::string size = std::to_string(width) + "," + std::to_string(height);
  std::string t = "do for [fmt in \"png svg\"] {\n";
  t += "  if (fmt eq \"png\") {\n";
  t += "    set terminal pngcairo size " + size + " font \"sans,11\" noenhanced\n";
  t += "  } else {\n";
  t += "    set terminal svg size " + size +
       " font \"sans,11\" noenhanced background rgb \"white\"\n";
  t += "  }\n";
  t += "  set output \"" + base + ".\".fmt\n";
  std::istringstream lines(body);
  for (std::string line; std::getline(lines, line);) t += "  " + line + "\n";
  t += "  unset output\n}\n";
  return t;
}

/// The empirical CDF of `values` as steps: (0, 0), then at each distinct value the share of
/// values at or below it, then (x_end, 1) so that the curve reaches the plot's right edge.
std::string cdf_block(std::vector<double> values, double x_end, std::string_view column) {
  std::sort(values.begin(), values.end());
  std::string d = "# " + std::string(column) + " share_of_jobs_at_or_below\n0 0\n";
  const double n = static_cast<double>(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i + 1 < values.size() && values[i + 1] == values[i]) continue;
    d += format_number(values[i]) + " " + format_number(static_cast<double>(i + 1) / n) + "\n";
  }
  d += format_number(x_end) + " 1\n";
  return d;
}

}  // namespace ibsdn
