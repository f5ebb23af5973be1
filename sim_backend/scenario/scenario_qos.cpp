// Scenario keys of seed 004's quality of service (docs/simulation-timing.md, "Traffic classes and
// background traffic"): `timing.classes`, the classes jobs and collectives name, and how a run
// gets them. The sweepable fields (timing.qos, timing.background's numbers) are read with the
// rest of `timing:` (scenario_timing.cpp) like every other sweep; this file reads the classes'
// list and the names and checks them.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "common/quote_for_message.hpp"
#include "sim_backend/scenario/scenario_draft.hpp"

namespace ibsdn {
namespace {

constexpr std::size_t kMaxClassName = 32;
constexpr std::uint64_t kMaxClassPriority = 15;

std::string class_list(const Scenario::Draft& d) {
  std::string out;
  for (const ScenarioClass& c : d.classes) out += (out.empty() ? "" : ", ") + c.name;
  return out;
}

std::optional<std::size_t> find_class(const Scenario::Draft& d, const std::string& name) {
  for (std::size_t i = 0; i < d.classes.size(); ++i) {
    if (d.classes[i].name == name) return i;
  }
  return std::nullopt;
}

std::string checked_name(const YamlReader& r, const YAML::Node& n, const std::string& key) {
  std::string v = r.string(n, key);
  const bool ok =
      !v.empty() && v.size() <= kMaxClassName && std::all_of(v.begin(), v.end(), [](char ch) {
        return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
               ch == '_' || ch == '-';
      });
  if (!ok) {
    r.fail(n, key + ": " + quote_for_message(v) + " is not a class name (1-" +
                  std::to_string(kMaxClassName) + " letters, digits, '_' or '-')");
  }
  return v;
}

}  // namespace

std::string read_class_name(const YamlReader& r, const YAML::Node& n, const std::string& key,
                            Scenario::Draft& d) {
  if (n.IsSequence()) {
    r.fail(n, key +
                  ": takes one class; classes are not swept (sweep timing.qos to compare with "
                  "and without them)");
  }
  std::string v = checked_name(r, n, key);
  d.class_refs.push_back({key, v, Where{line_of(n), column_of(n)}});
  return v;
}

nlohmann::json read_traffic_classes(const YamlReader& r, const YAML::Node& list,
                                    Scenario::Draft& d) {
  const std::string key = "timing.classes";
  if (!list.IsSequence() || list.size() == 0) {
    r.fail(list, key + ": expected a list of classes ({name: N, priority: P, cap: C})");
  }
  if (list.size() > ScenarioClass::kMax) {
    r.fail(list, key + ": " + std::to_string(list.size()) + " classes; at most " +
                     std::to_string(ScenarioClass::kMax) + " (one SL each, default included)");
  }
  nlohmann::json out = nlohmann::json::array();
  std::vector<std::pair<std::string, Where>> listed;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const YAML::Node& entry = list[i];
    const std::string what = key + "[" + std::to_string(i) + "]";
    ScenarioClass c;
    std::optional<YAML::Node> name_node;
    r.for_each_key(entry, what, kClassKeys, [&](const std::string& k, const YAML::Node& v) {
      const std::string full = what + "." + k;
      if (v.IsSequence()) {
        r.fail(v, full +
                      ": takes one value; classes are not swept (write two scenarios, or "
                      "sweep timing.qos)");
      }
      if (k == "name") {
        name_node.emplace(v);
      } else if (k == "priority") {
        c.priority = static_cast<int>(r.integer(v, full, 0, kMaxClassPriority));
      } else if (k == "cap") {
        c.cap = r.number(v, full);
        if (!(c.cap > 0) || c.cap > 1) {
          r.fail(v, full + ": " + v.Scalar() +
                        " is out of range: a fraction of every link above 0 and at most 1 (0.3, "
                        "not 30)");
        }
      } else {
        c.borrow = r.boolean(v, full);
      }
    });
    if (!name_node) r.fail(entry, what + ": missing key 'name'");
    c.name = checked_name(r, *name_node, what + ".name");
    for (const auto& [name, w] : listed) {
      if (name != c.name) continue;
      r.fail(*name_node, what + ".name: " + quote_for_message(c.name) +
                             " is listed twice (first at " + std::to_string(w.line) + ":" +
                             std::to_string(w.column) + ")");
    }
    listed.emplace_back(c.name, Where{line_of(*name_node), column_of(*name_node)});
    if (c.name == "default") {
      d.classes[0] = c;
    } else {
      if (d.classes.size() == ScenarioClass::kMax) {
        r.fail(entry, what + ": a 17th class with default; at most " +
                          std::to_string(ScenarioClass::kMax) + " (one SL each)");
      }
      d.classes.push_back(c);
    }
    out.push_back(
        {{"name", c.name}, {"priority", c.priority}, {"cap", c.cap}, {"borrow", c.borrow}});
  }
  return out;
}

void check_class_names(const YamlReader& r, const Scenario::Draft& d, bool flow) {
  for (const Scenario::Draft::ClassRef& ref : d.class_refs) {
    if (!flow) {
      r.fail_at(ref.at.line, ref.at.column,
                ref.key + " is for model flow only (this scenario's model is static)");
    }
    if (!find_class(d, ref.name)) {
      r.fail_at(ref.at.line, ref.at.column,
                ref.key + ": unknown class " + quote_for_message(ref.name) +
                    " (timing.classes has: " + class_list(d) + ")");
    }
  }
}

std::size_t class_index(const Scenario::Draft& d, const std::string& name) {
  return find_class(d, name).value();
}

void build_qos(const Scenario::Draft& d, std::span<const std::size_t> choice, TimingSettings& t) {
  t.classes = d.classes;
  t.qos = d.qos.value(choice) != 0;
  if (!d.collectives.empty()) t.collectives = class_index(d, d.collectives);
  if (!d.background_given) return;
  BackgroundSettings b;
  b.nodes = d.background_nodes.value(choice);
  b.bytes = d.background_bytes.value(choice);
  b.load = d.background_load.value(choice);
  b.duration = d.background_duration.value(choice);
  b.traffic_class = class_index(d, d.background_class);
  t.background = b;
}

}  // namespace ibsdn
