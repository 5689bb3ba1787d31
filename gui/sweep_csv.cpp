#include "gui/sweep_csv.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>

#include "core/plan/input_error.hpp"
#include "explore/sweep_csv.hpp"

namespace scaleout::gui {

Curves read_sweep_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw core::InputError(path, 0, "", "cannot open file (does it exist?)");
  std::string line;
  std::getline(in, line);
  std::map<std::string, std::size_t> col;
  auto header = sim::split_row(line);
  for (std::size_t i = 0; i < header.size(); ++i) col[header[i]] = i;
  for (const char* need :
       {"strategy", "workers", "step_time_s", "throughput_samples_per_s", "scaling_efficiency"})
    if (!col.count(need)) throw core::InputError(path, 1, need, "missing column: not a sweep CSV");
  Curves curves;
  std::set<int> sizes;
  int number = 1;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    auto f = sim::split_row(line);
    auto get = [&](const char* name) -> double {
      auto it = col.find(name);
      if (it == col.end()) return 0;
      if (it->second >= f.size()) throw core::InputError(path, number, name, "missing value");
      try {
        return std::stod(f[it->second]);
      } catch (const std::exception&) {
        throw core::InputError(path, number, name, "expected a number");
      }
    };
    if (f.size() < header.size())
      throw core::InputError(path, number, "",
                             "expected " + std::to_string(header.size()) + " columns");
    core::RunResult r;
    r.strategy = f[col["strategy"]];
    r.engine = col.count("engine") ? f[col["engine"]] : "";
    r.workers = static_cast<int>(get("workers"));
    r.step_time_s = get("step_time_s");
    r.throughput_samples_per_s = get("throughput_samples_per_s");
    r.scaling_efficiency = get("scaling_efficiency");
    r.phases.compute_s = get("compute_s");
    r.phases.comm_s = get("comm_s");
    r.phases.exposed_comm_s = get("exposed_comm_s");
    sizes.insert(r.workers);
    auto it = std::find_if(curves.curves.begin(), curves.curves.end(),
                           [&](const Curve& c) { return c.strategy == r.strategy; });
    if (it == curves.curves.end()) it = curves.curves.insert(curves.curves.end(), {r.strategy, {}});
    it->points.push_back(r);
  }
  if (curves.curves.empty()) throw core::InputError(path, 0, "", "no rows");
  curves.workers.assign(sizes.begin(), sizes.end());
  for (auto& c : curves.curves)
    std::sort(c.points.begin(), c.points.end(),
              [](const auto& a, const auto& b) { return a.workers < b.workers; });
  return curves;
}

}  // namespace scaleout::gui
