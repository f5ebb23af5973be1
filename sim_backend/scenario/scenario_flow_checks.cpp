// What only the flow model takes (docs/simulation.md, "The flow model in scenarios"): `timing:`,
// applications, jobs given by their ranks, `reference` and the fabric's adaptive routing are
// refused in a static scenario at the value that needs the flow model, and the two models are
// not swept together. Checked once the document is read (scenario.cpp), before any run is built.
#include <algorithm>
#include <string>

#include "sim_backend/scenario/scenario_draft.hpp"
#include "sim_backend/scenario/scenario_fields.hpp"

namespace ibsdn {

bool flow_model(const Scenario::Draft& d) {
  return std::find(d.model.values.begin(), d.model.values.end(), SimulationModel::kFlow) !=
         d.model.values.end();
}

void check_flow_only(const YamlReader& r, const Scenario::Draft& d) {
  const auto& models = d.model.values;
  const bool has_static =
      std::find(models.begin(), models.end(), SimulationModel::kStatic) != models.end();
  if (flow_model(d) && has_static) {
    const Where w = d.model.at.back();
    r.fail_at(w.line, w.column,
              "model: static and flow cannot be swept together (their outputs differ); write "
              "two scenarios");
  }
  if (flow_model(d)) {
    if (d.alone.given() && d.alone.values[0] != 0 && d.jobs && d.jobs->size() > kMaxAloneJobs) {
      const Where w = d.alone.at[0];
      r.fail_at(w.line, w.column,
                "timing.alone: " + std::to_string(d.jobs->size()) +
                    " jobs would each run once more alone; at most " +
                    std::to_string(kMaxAloneJobs));
    }
    return;
  }
  const auto refuse = [&](Where w, const std::string& what) {
    r.fail_at(w.line, w.column,
              what +
                  " is for model flow only (this scenario's model is "
                  "static)");
  };
  if (d.timing_given) refuse(d.timing_at, "timing");
  if (d.application.given()) refuse(d.application.at[0], "application");
  if (d.job_application_at) refuse(*d.job_application_at, "a job's application");
  if (d.job_ranks_at) refuse(*d.job_ranks_at, "a job's ranks");
  if (d.reference_at) refuse(*d.reference_at, "reference");
  if (!d.pattern.given()) {
    r.fail_at(0, 0, "top level: missing key 'pattern' (an application needs model flow)");
  }
  for (std::size_t i = 0; i < d.routing.values.size(); ++i) {
    if (d.routing.values[i] == kAdaptiveRouting) {
      refuse(d.routing.at[i], "routing: adaptive (the fabric's adaptive routing)");
    }
  }
}

}  // namespace ibsdn
