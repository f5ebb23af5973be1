#include "sim_backend/scenario/scenario_sweeps.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/quote_for_message.hpp"

namespace ibsdn {
namespace {

std::string list_keys(const std::vector<SweepAxis>& axes) {
  if (axes.empty()) return "nothing is swept";
  std::string out = "the swept keys: ";
  for (std::size_t a = 0; a < axes.size(); ++a) out += (a ? ", " : "") + axes[a].key;
  return out;
}

// The axis swept under `key`, or a message that names what is swept.
std::size_t swept_axis(const Scenario::Draft& d, const YamlReader& r, const YAML::Node& at,
                       const std::string& what, const std::string& key) {
  for (std::size_t a = 0; a < d.axes.size(); ++a) {
    if (d.axes[a].key == key) return a;
  }
  r.fail(at, what + ": " + quote_for_message(key) + " is not swept in this scenario (" +
                 list_keys(d.axes) + ")");
}

std::optional<double> as_number(const std::string& text) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

}  // namespace

void zip_sweeps(const YAML::Node* zip, Scenario::Draft& d, const YamlReader& r,
                nlohmann::json& canonical) {
  std::vector<int> zipped(d.axes.size(), -1);  // the zip group of each axis
  if (zip != nullptr) {
    const YAML::Node& z = *zip;
    if (!z.IsSequence() || z.size() == 0) {
      r.fail(z,
             "zip: expected a list of swept keys that vary together, [gpus_per_node, "
             "topology.xgft], or a list of such lists");
    }
    // One group written flat, or a list of groups.
    std::vector<YAML::Node> groups;
    if (std::all_of(z.begin(), z.end(), [](const YAML::Node& n) { return n.IsScalar(); })) {
      groups.push_back(z);
    } else {
      for (const YAML::Node& g : z) groups.push_back(g);
    }
    nlohmann::json written = nlohmann::json::array();
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const YAML::Node& group = groups[g];
      const std::string what = "zip[" + std::to_string(g) + "]";
      if (!group.IsSequence() || group.size() < 2) {
        r.fail(group, what + ": a group lists at least two swept keys");
      }
      std::optional<std::size_t> first;
      nlohmann::json keys = nlohmann::json::array();
      for (const YAML::Node& k : group) {
        const std::string key = r.string(k, what);
        const std::size_t a = swept_axis(d, r, k, what, key);
        if (zipped[a] >= 0) {
          r.fail(k,
                 what + ": " + quote_for_message(key) + " is already zipped" +
                     (zipped[a] == static_cast<int>(g) ? " in this group" : " in another group"));
        }
        zipped[a] = static_cast<int>(g);
        if (!first) {
          first = a;
        } else if (d.axes[a].values.size() != d.axes[*first].values.size()) {
          r.fail(k, what + ": " + quote_for_message(key) + " sweeps " +
                        std::to_string(d.axes[a].values.size()) + " values, " +
                        quote_for_message(d.axes[*first].key) + " " +
                        std::to_string(d.axes[*first].values.size()) +
                        "; zipped sweeps take their values together and need as many");
        }
        keys.push_back(key);
      }
      written.push_back(std::move(keys));
    }
    canonical["zip"] = std::move(written);
  }
  // Groups numbered by their first axis in the file's order.
  d.group_sizes.clear();
  std::map<int, std::size_t> number;  // zip group -> group number
  for (std::size_t a = 0; a < d.axes.size(); ++a) {
    if (zipped[a] >= 0) {
      const auto [it, fresh] = number.emplace(zipped[a], d.group_sizes.size());
      if (fresh) d.group_sizes.push_back(d.axes[a].values.size());
      d.axes[a].group = it->second;
    } else {
      d.axes[a].group = d.group_sizes.size();
      d.group_sizes.push_back(d.axes[a].values.size());
    }
  }
}

void reference_sweeps(const YAML::Node* reference, Scenario::Draft& d, const YamlReader& r,
                      nlohmann::json& canonical) {
  d.reference.clear();
  d.reference_label.clear();
  if (reference == nullptr) return;
  const YAML::Node& ref = *reference;
  if (!ref.IsMap() || ref.size() == 0) {
    r.fail(ref,
           "reference: expected a map from swept keys to one of their values, "
           "{gpus_per_node: 1}");
  }
  nlohmann::json written = nlohmann::json::object();
  std::map<std::size_t, std::pair<std::size_t, std::string>> chosen;  // group -> position, key
  for (auto it = ref.begin(); it != ref.end(); ++it) {
    const std::string key = r.string(it->first, "reference");
    const std::string what = "reference." + key;
    const std::size_t a = swept_axis(d, r, it->first, "reference", key);
    if (written.contains(key)) r.fail(it->first, what + ": given twice");
    if (!it->second.IsScalar()) r.fail(it->second, what + ": expected one of the sweep's values");
    const std::string text = r.string(it->second, what);
    const std::vector<std::string>& values = d.axes[a].values;
    auto same = std::find(values.begin(), values.end(), text);
    if (same == values.end() && as_number(text)) {
      same = std::find_if(values.begin(), values.end(), [&](const std::string& v) {
        const auto n = as_number(v);
        return n && *n == *as_number(text);
      });
    }
    if (same == values.end()) {
      std::string listed;
      for (const std::string& v : values) listed += (listed.empty() ? "" : ", ") + v;
      r.fail(it->second, what + ": " + quote_for_message(text) + " is not one of the sweep's " +
                             "values (" + listed + ")");
    }
    const auto position = static_cast<std::size_t>(same - values.begin());
    const std::size_t group = d.axes[a].group;
    const auto [prev, fresh] = chosen.emplace(group, std::pair{position, key});
    if (!fresh && prev->second.first != position) {
      r.fail(it->second, what + ": " + quote_for_message(text) + " is zipped with " +
                             quote_for_message(prev->second.second) +
                             ", whose reference value is at another position of the sweep");
    }
    written[key] = *same;
  }
  for (const auto& [group, pick] : chosen) d.reference.emplace_back(group, pick.first);
  // The label in the axes' order, as run labels are written.
  for (const SweepAxis& a : d.axes) {
    if (written.contains(a.key)) {
      d.reference_label +=
          (d.reference_label.empty() ? "" : " ") + a.key + "=" + written[a.key].get<std::string>();
    }
  }
  canonical["reference"] = std::move(written);
}

}  // namespace ibsdn
