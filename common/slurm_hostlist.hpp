// Slurm host lists (SLURM_JOB_NODELIST: "node[01-04,07],gpu3") checked here and expanded by
// libslurm. libslurm's parser accepts malformed text ("bad[1-" expands to "bad]"), so the syntax
// is checked first, and the host count is known (and bounded) before anything is expanded.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ibsdn {

struct HostlistError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The number of hosts `text` names, or HostlistError saying what is wrong and where. Accepted:
/// comma-separated items, each a sequence of name characters (letters, digits, '-', '.', '_')
/// and bracket groups of comma-separated decimal numbers or ranges LO-HI (LO <= HI), as Slurm
/// writes them; several groups in one item multiply ("r[1-2]n[1-4]" is 8 hosts). Refused: empty
/// text or items, unbalanced or nested brackets, empty groups, whitespace, Slurm's "x" prisms,
/// and lists naming more than `max_hosts` hosts (counted without expanding anything).
std::size_t count_hostlist(std::string_view text, std::size_t max_hosts);

/// The hosts of `text` in Slurm's order, expanded by libslurm (slurm_hostlist_*) after
/// count_hostlist(); every host must be distinct and agree in number with the count.
std::vector<std::string> expand_hostlist(std::string_view text, std::size_t max_hosts);

}  // namespace ibsdn
