// `timing:` of a scenario (docs/simulation.md, "The flow model in scenarios"): the NIC policy, GPU
// links, latency, bandwidth multiple, baseline, runs alone, link samples, adaptive routing's
// parameters and seed 004's quality of service (traffic classes, their switch, the collectives'
// class, background traffic; scenario_qos.cpp reads the classes' list and checks the names).
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <optional>

#include "common/quote_for_message.hpp"
#include "routing/patterns/pattern_spec.hpp"
#include "sim_backend/scenario/scenario_fields.hpp"

namespace ibsdn {
namespace {

constexpr std::array<std::string_view, 3> kAdaptiveRules = {"par", "ugal-l", "ugal-g"};
constexpr double kMaxGpuLinkFactor = 1000;
constexpr double kMaxLinkLatency = 1.0;        // seconds
constexpr double kMaxSampleInterval = 1e6;     // seconds
constexpr double kMaxAdaptiveParameter = 1e6;  // bias, split_slack (flows)

class TimingSection : FieldSection {
 public:
  explicit TimingSection(FieldReader& f) : FieldSection(f) {}

  void read(const YAML::Node& map) {
    d_.timing_given = true;
    d_.timing_at = where_of(map);
    constexpr std::string_view kWhy = "it cannot be swept (write two scenarios)";
    f_.each_field(map, "timing", kTimingKeys, [&](const std::string& key, const YAML::Node& v) {
      const std::string full = "timing." + key;
      if (key == "nic") {
        f_.read(v, full, d_.nic, nic());
      } else if (key == "gpu_link") {
        f_.read(v, full, d_.gpu_link,
                ranged(1e-3, kMaxGpuLinkFactor, "a factor of the link bandwidth, 0.001 to 1000"));
      } else if (key == "bandwidth_multiple") {
        f_.read(v, full, d_.bandwidth_multiple,
                ranged(1.0 / 16, 16, "a multiple of link_bandwidth from 0.0625 (x/16) to 16"));
      } else if (key == "link_latency") {
        f_.single(v, full, kWhy);
        f_.read(v, full, d_.link_latency, duration(kMaxLinkLatency));
      } else if (key == "baseline") {
        f_.single(v, full, "one routing is the speedup's reference");
        f_.read(v, full, d_.baseline, f_.routing());
      } else if (key == "alone") {
        f_.single(v, full, kWhy);
        f_.read(v, full, d_.alone, f_.boolean());
      } else if (key == "sample_interval") {
        f_.single(v, full, kWhy);
        f_.read(v, full, d_.sample_interval, duration(kMaxSampleInterval));
      } else if (key == "elephants") {
        f_.read(v, full, d_.elephant_bytes, byte_count(true));
      } else if (key == "classes" || key == "qos" || key == "collectives" || key == "background") {
        qos(key, v);
      } else {
        f_.each_field(v, full, kAdaptiveKeys, [&](const std::string& k, const YAML::Node& a) {
          const std::string name = full + "." + k;
          f_.single(a, name, kWhy);
          if (k == "rule") {
            f_.read(a, name, d_.adaptive_rule, adaptive_rule());
          } else {
            f_.read(a, name, k == "bias" ? d_.adaptive_bias : d_.split_slack,
                    ranged(0, kMaxAdaptiveParameter, "flows, from 0 to 1000000"));
          }
        });
      }
    });
  }

 private:
  // Seed 004's traffic classes and background (scenario_qos.cpp reads what does not sweep).
  void qos(const std::string& key, const YAML::Node& v) {
    const std::string full = "timing." + key;
    nlohmann::json& canonical = f_.canonical();
    if (key == "classes") {
      canonical[full] = read_traffic_classes(r_, v, d_);
    } else if (key == "qos") {
      f_.read(v, full, d_.qos, f_.boolean());
    } else if (key == "collectives") {
      d_.collectives = read_class_name(r_, v, full, d_);
      canonical[full] = d_.collectives;
    } else {
      background(v, full);
    }
  }

  void background(const YAML::Node& v, const std::string& full) {
    d_.background_given = true;
    d_.background_at = where_of(v);
    f_.each_field(v, full, kBackgroundKeys, [&](const std::string& k, const YAML::Node& b) {
      const std::string name = full + "." + k;
      if (k == "nodes") {
        f_.read(b, name, d_.background_nodes, f_.integer<std::uint32_t>(2, kMaxHosts));
      } else if (k == "bytes") {
        f_.read(b, name, d_.background_bytes, byte_count(false));
      } else if (k == "load") {
        f_.read(b, name, d_.background_load,
                ranged(std::nextafter(0.0, 1.0), 1,
                       "a share of the link bandwidth above 0, at most 1 (0.2, not 20)"));
      } else if (k == "duration") {
        f_.read(b, name, d_.background_duration, duration(kMaxJobTime));
      } else {
        d_.background_class = read_class_name(r_, b, name, d_);
        f_.canonical()[name] = d_.background_class;
      }
    });
    for (std::string_view k : {"nodes", "bytes", "load"}) {
      const bool given = k == "nodes"   ? d_.background_nodes.given()
                         : k == "bytes" ? d_.background_bytes.given()
                                        : d_.background_load.given();
      if (!given) f_.missing(v, full, k);
    }
  }

  // A number in [min, max], written as the `what` says.
  ReadOne<double> ranged(double min, double max, std::string what) const {
    return [this, min, max, what](const YAML::Node& n, const std::string& key) {
      const double v = r_.number(n, key);
      if (!(v >= min) || v > max) {
        r_.fail(n, key + ": " + n.Scalar() + " is out of range: " + what);
      }
      return std::pair<double, std::string>{v, number_text(v)};
    };
  }

  // A duration as applications write it (`100ns`, `2ms`, `0`), at most `max` seconds.
  ReadOne<double> duration(double max) const {
    return [this, max](const YAML::Node& n, const std::string& key) {
      const std::string text = r_.string(n, key);
      std::string why;
      const std::optional<double> v = parse_duration(text, &why);
      if (!v) r_.fail(n, key + ": " + quote_for_message(text) + " " + why);
      if (*v > max) {
        r_.fail(n, key + ": " + quote_for_message(text) + " is out of range: at most " +
                       duration_to_string(max));
      }
      return std::pair<double, std::string>{*v, duration_to_string(*v)};
    };
  }

  // A message size as applications write it (`1M`, `64K`, `4096`), 1 byte .. 1 TiB; with
  // `zero`, also `0`.
  ReadOne<std::uint64_t> byte_count(bool zero) const {
    return [this, zero](const YAML::Node& n, const std::string& key) {
      const std::string text = r_.string(n, key);
      if (zero && text == "0") return std::pair<std::uint64_t, std::string>{0, "0"};
      std::string why;
      const std::optional<std::uint64_t> v = parse_byte_count(text, &why);
      if (!v) r_.fail(n, key + ": " + quote_for_message(text) + " " + why);
      if (*v == 0 || *v > kMaxAppMessageBytes) {
        r_.fail(n, key + ": " + quote_for_message(text) +
                       " is out of range: " + (zero ? "0, or 1 byte to 1024G" : "1 byte to 1024G"));
      }
      return std::pair<std::uint64_t, std::string>{*v, std::to_string(*v)};
    };
  }

  ReadOne<NicPolicy> nic() const {
    return [this](const YAML::Node& n, const std::string& key) {
      const std::string text = r_.string(n, key);
      try {
        const NicPolicy p = NicPolicy::parse(text);
        return std::pair<NicPolicy, std::string>{p, p.to_string()};
      } catch (const std::invalid_argument& e) {
        r_.fail(n, key + ": " + e.what());
      }
    };
  }

  ReadOne<DragonflyAdaptiveRule> adaptive_rule() const {
    return [this](const YAML::Node& n, const std::string& key) {
      const std::string v = f_.one_of(kAdaptiveRules)(n, key).first;
      const DragonflyAdaptiveRule r = parse_dragonfly_adaptive_rule(v);
      return std::pair<DragonflyAdaptiveRule, std::string>{r, v};
    };
  }
};

}  // namespace

void read_timing(FieldReader& f, const YAML::Node& map) {
  TimingSection(f).read(map);
}

void set_timing_defaults(FieldReader& f) {
  Scenario::Draft& d = f.draft();
  f.set_default(d.nic, "timing.nic", NicPolicy{}, NicPolicy{}.to_string());
  f.set_default(d.gpu_link, "timing.gpu_link", 2.0, "2");
  f.set_default(d.link_latency, "timing.link_latency", 0.0, "0");
  f.set_default(d.bandwidth_multiple, "timing.bandwidth_multiple", 1.0, "1");
  f.set_default(d.baseline, "timing.baseline", std::string("dmodk"), "dmodk");
  f.set_default(d.alone, "timing.alone", std::uint8_t{0}, "false");
  f.set_default(d.sample_interval, "timing.sample_interval", 0.0, "0");
  f.set_default(d.elephant_bytes, "timing.elephants", std::uint64_t{0}, "0");
  f.set_default(d.qos, "timing.qos", std::uint8_t{1}, "true");
  if (d.background_given) {
    f.set_default(d.background_duration, "timing.background.duration", 0.0, "0");
  }
  const AdaptiveRoutingOptions a;
  f.set_default(d.adaptive_rule, "timing.adaptive.rule", a.dragonfly.rule,
                std::string(to_string(a.dragonfly.rule)));
  f.set_default(d.adaptive_bias, "timing.adaptive.bias", a.dragonfly.bias,
                number_text(a.dragonfly.bias));
  f.set_default(d.split_slack, "timing.adaptive.split_slack", a.fat_tree.split_slack,
                number_text(a.fat_tree.split_slack));
}

}  // namespace ibsdn
