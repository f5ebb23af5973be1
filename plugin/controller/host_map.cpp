#include "plugin/controller/host_map.hpp"

#include <unordered_map>

#include "common/config_error.hpp"
#include "common/file_line_error.hpp"
#include "common/names.hpp"
#include "common/quote_for_message.hpp"
#include "flowtable/guid_text.hpp"
#include "plugin/controller/config.hpp"

namespace ibsdn {
namespace {

bool is_blank(char c) {
  return c == ' ' || c == '\t';
}

}  // namespace

HostMap HostMap::parse(std::string_view text, std::string_view source_name) {
  HostMap map;
  std::unordered_map<std::uint64_t, std::size_t> by_guid;
  std::unordered_map<std::string, std::size_t> by_prefix;
  TextLines lines(text);
  std::string_view line;
  while (lines.next(line)) {
    const std::size_t line_no = lines.number();
    const auto fail = [&](std::size_t index, const std::string& what) {
      throw ConfigError(source_name, line_no, index + 1, what);
    };

    std::size_t i = 0;
    while (i < line.size() && is_blank(line[i])) ++i;
    if (i == line.size() || line[i] == '#') continue;
    const std::size_t host_at = i;
    while (i < line.size() && !is_blank(line[i])) ++i;
    HostMapEntry e;
    e.line = line_no;
    e.hostname = std::string(line.substr(host_at, i - host_at));
    if (std::string why = hostname_problem(e.hostname); !why.empty()) {
      fail(host_at, quote_for_message(e.hostname) + " is not a valid host name: " + why);
    }
    while (i < line.size() && is_blank(line[i])) ++i;
    if (i == line.size() || line[i] == '#') {
      fail(i, "missing the NodeDescription prefix or GUID after the host name");
    }
    const std::size_t target_at = i;
    std::string_view target;
    bool quoted = false;
    if (line[i] == '"') {
      const std::size_t close = line.find('"', i + 1);
      if (close == std::string_view::npos) fail(i, "unterminated quoted NodeDescription prefix");
      target = line.substr(i + 1, close - i - 1);
      quoted = true;
      std::size_t after = close + 1;
      while (after < line.size() && is_blank(line[after])) ++after;
      if (after < line.size() && line[after] != '#') {
        fail(after, "unexpected text after the quoted NodeDescription prefix");
      }
    } else {
      std::size_t end = i;
      while (end < line.size() && !(line[end] == '#' && is_blank(line[end - 1]))) ++end;
      while (end > i && is_blank(line[end - 1])) --end;
      target = line.substr(i, end - i);
    }
    if (!quoted) e.guid = parse_guid(target);
    if (!e.guid) {
      if (target.empty()) fail(target_at, "empty NodeDescription prefix");
      if (target.size() > kMaxNodeDescription) {
        fail(target_at, "NodeDescription prefix longer than " +
                            std::to_string(kMaxNodeDescription) + " bytes");
      }
      for (const char c : target) {
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
          fail(target_at, "control character in the NodeDescription prefix");
        }
      }
      e.description_prefix = std::string(target);
    } else if (e.guid->value() == 0) {
      fail(target_at, "GUID 0 names no node");
    }

    if (const auto it = map.by_host_.find(e.hostname); it != map.by_host_.end()) {
      fail(host_at, "host name " + quote_for_message(e.hostname) + " already mapped on line " +
                        std::to_string(map.entries_[it->second].line));
    }
    if (e.guid) {
      if (const auto [it, fresh] = by_guid.emplace(e.guid->value(), line_no); !fresh) {
        fail(target_at, "GUID already mapped on line " + std::to_string(it->second));
      }
    } else if (const auto [it, fresh] = by_prefix.emplace(e.description_prefix, line_no); !fresh) {
      fail(target_at,
           "NodeDescription prefix already mapped on line " + std::to_string(it->second));
    }
    map.by_host_.emplace(e.hostname, map.entries_.size());
    map.entries_.push_back(std::move(e));
  }
  return map;
}

HostMap HostMap::load(const std::string& path) {
  return parse(read_config_file(path), path);
}

const HostMapEntry* HostMap::find(std::string_view hostname) const {
  const auto it = by_host_.find(std::string(hostname));
  return it == by_host_.end() ? nullptr : &entries_[it->second];
}

bool description_matches(std::string_view description, std::string_view prefix) {
  return !prefix.empty() && description.substr(0, prefix.size()) == prefix &&
         (description.size() == prefix.size() || description[prefix.size()] == ' ');
}

}  // namespace ibsdn
