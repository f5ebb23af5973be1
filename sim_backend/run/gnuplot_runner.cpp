#include "sim_backend/run/gnuplot_runner.hpp"

#include <atomic>
#include <optional>
#include <stdexcept>
#include <system_error>

#include "sim_backend/io/text_file.hpp"
#include "sim_backend/run/parallel_for.hpp"
#include "sim_backend/run/subprocess.hpp"

namespace ibsdn {

PlotOutput write_plots(const PlotSet& set, const std::filesystem::path& out_dir,
                       const RenderOptions& options) {
  PlotOutput out;
  out.dir = out_dir / "plots";
  std::error_code ec;
  std::filesystem::create_directories(out.dir, ec);
  if (ec) throw std::runtime_error("cannot create '" + out.dir.string() + "': " + ec.message());
  for (const PlotFile& f : set.files) {
    const std::filesystem::path p = out.dir / f.name;
    write_text_file(p.string(), f.text, "plot file");
    out.files.push_back(p);
  }
  if (set.scripts.empty()) return out;
  const std::optional<std::filesystem::path> gnuplot = find_program(options.gnuplot);
  if (!gnuplot) {
    out.warnings.push_back("gnuplot not found (" + options.gnuplot +
                           "): no images; the scripts are in " + out.dir.string() +
                           " (install gnuplot-nox, then run gnuplot NAME.gp there)");
    return out;
  }
  out.gnuplot_found = true;
  // One gnuplot per script, `jobs` at a time; results are reported in script order.
  std::vector<std::optional<ProgramResult>> results(set.scripts.size());
  std::atomic<std::size_t> failures{0};
  parallel_for(set.scripts.size(), options.jobs, [&](std::size_t i) {
    if (failures.load() >= options.max_failures) return;
    results[i] = run_program(*gnuplot, {set.scripts[i]}, out.dir, options.timeout);
    if (!results[i]->ok()) failures.fetch_add(1);
  });

  std::size_t skipped = 0;
  for (std::size_t i = 0; i < set.scripts.size(); ++i) {
    const std::string& script = set.scripts[i];
    if (!results[i]) {
      ++skipped;
      continue;
    }
    const ProgramResult& r = *results[i];
    std::string err = r.err_output;
    while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.pop_back();
    if (!r.ok()) {
      out.warnings.push_back("gnuplot failed on " + (out.dir / script).string() + " (" +
                             r.describe() + ")" + (err.empty() ? "" : ":\n" + err));
      continue;
    }
    if (!err.empty()) {
      out.warnings.push_back("gnuplot on " + (out.dir / script).string() + ":\n" + err);
    }
    const std::string base = script.substr(0, script.size() - 3);
    for (const char* ext : {".png", ".svg"}) {
      const std::filesystem::path img = out.dir / (base + ext);
      if (std::filesystem::exists(img, ec)) out.images.push_back(img);
    }
  }
  if (skipped > 0) {
    out.warnings.push_back("gnuplot: " + std::to_string(skipped) +
                           " more scripts not rendered after " + std::to_string(failures.load()) +
                           " failures");
  }
  return out;
}

}  // namespace ibsdn
