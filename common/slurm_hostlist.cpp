#include "common/slurm_hostlist.hpp"

#include <slurm/slurm.h>
#include <stdlib.h>

#include <charconv>
#include <memory>
#include <unordered_set>

#include "common/names.hpp"
#include "common/quote_for_message.hpp"

namespace ibsdn {
namespace {

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_';
}

[[noreturn]] void fail(std::string_view text, std::size_t pos, const std::string& what) {
  throw HostlistError("host list " + quote_for_message(text) + ": at character " +
                      std::to_string(pos + 1) + ": " + what);
}

// Products and sums that would pass max_hosts are refused as they happen, so no range of any
// size is ever walked or multiplied past the bound.
std::size_t checked_add(std::size_t a, std::size_t b, std::size_t max, std::string_view text,
                        std::size_t pos) {
  if (b > max || a > max - b) {
    fail(text, pos, "names more than " + std::to_string(max) + " hosts");
  }
  return a + b;
}

std::size_t checked_mul(std::size_t a, std::size_t b, std::size_t max, std::string_view text,
                        std::size_t pos) {
  if (a != 0 && b > max / a) fail(text, pos, "names more than " + std::to_string(max) + " hosts");
  return a * b;
}

// Reads a decimal number at text[pos]; pos moves past it.
std::uint64_t number(std::string_view text, std::size_t& pos) {
  const std::size_t start = pos;
  while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') ++pos;
  if (pos == start) fail(text, start, "expected a number in the brackets");
  if (pos - start > 18) fail(text, start, "number too long");
  std::uint64_t v = 0;
  std::from_chars(text.data() + start, text.data() + pos, v);
  return v;
}

// One bracket group "[1-4,7]" starting at text[pos] == '['; returns its host count.
std::size_t group(std::string_view text, std::size_t& pos, std::size_t max) {
  const std::size_t open = pos++;
  std::size_t count = 0;
  for (;;) {
    const std::size_t at = pos;
    const std::uint64_t lo = number(text, pos);
    std::uint64_t hi = lo;
    if (pos < text.size() && text[pos] == '-') {
      ++pos;
      hi = number(text, pos);
      if (hi < lo)
        fail(text, at,
             "range " + std::to_string(lo) + "-" + std::to_string(hi) + " runs backwards");
    }
    const std::uint64_t size = hi - lo + 1;
    if (size > max) fail(text, at, "names more than " + std::to_string(max) + " hosts");
    count = checked_add(count, static_cast<std::size_t>(size), max, text, at);
    if (pos >= text.size()) fail(text, open, "'[' is never closed");
    if (text[pos] == ']') {
      ++pos;
      return count;
    }
    if (text[pos] != ',') {
      fail(text, pos,
           text[pos] == '[' ? std::string("brackets cannot nest")
                            : "expected ',', '-' or ']' in the brackets, found " +
                                  quote_for_message(text.substr(pos, 1)));
    }
    ++pos;
  }
}

struct HostlistDeleter {
  void operator()(hostlist* h) const { slurm_hostlist_destroy(h); }
};

}  // namespace

std::size_t count_hostlist(std::string_view text, std::size_t max_hosts) {
  if (text.empty()) throw HostlistError("host list is empty");
  std::size_t total = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t item_start = pos;
    std::size_t hosts = 1;
    bool named = false;
    while (pos < text.size() && text[pos] != ',') {
      const char c = text[pos];
      if (c == '[') {
        hosts = checked_mul(hosts, group(text, pos, max_hosts), max_hosts, text, item_start);
        named = true;
      } else if (is_name_char(c)) {
        ++pos;
        named = true;
      } else if (c == ']') {
        fail(text, pos, "']' without '['");
      } else {
        fail(text, pos, "unexpected character " + quote_for_message(text.substr(pos, 1)));
      }
    }
    if (!named) fail(text, item_start, "empty host name");
    total = checked_add(total, hosts, max_hosts, text, item_start);
    ++pos;  // past ',' (or the end)
  }
  return total;
}

std::vector<std::string> expand_hostlist(std::string_view text, std::size_t max_hosts) {
  const std::size_t count = count_hostlist(text, max_hosts);
  const std::string owned(text);
  const std::unique_ptr<hostlist, HostlistDeleter> list(slurm_hostlist_create(owned.c_str()));
  if (!list) throw HostlistError("host list " + quote_for_message(text) + ": libslurm refused it");
  std::vector<std::string> hosts;
  hosts.reserve(count);
  std::unordered_set<std::string> seen;
  while (char* h = slurm_hostlist_shift(list.get())) {
    std::string host(h);
    ::free(h);  // libslurm's shifted strings come from malloc()
    if (hosts.size() == count) {
      throw HostlistError("host list " + quote_for_message(text) +
                          ": libslurm expands it to more than " + std::to_string(count) + " hosts");
    }
    if (const std::string why = hostname_problem(host); !why.empty()) {
      throw HostlistError("host list " + quote_for_message(text) + ": host " +
                          quote_for_message(host) + ": " + why);
    }
    if (!seen.insert(host).second) {
      throw HostlistError("host list " + quote_for_message(text) + ": host " +
                          quote_for_message(host) + " appears twice");
    }
    hosts.push_back(std::move(host));
  }
  if (hosts.size() != count) {
    throw HostlistError("host list " + quote_for_message(text) + ": libslurm expands it to " +
                        std::to_string(hosts.size()) + " hosts, not " + std::to_string(count));
  }
  return hosts;
}

}  // namespace ibsdn
