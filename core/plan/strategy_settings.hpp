// Reading a plan's `strategy:` section: the kind, and the settings ("knobs") that apply to it.
//
// Each knob belongs to the kinds whose programs read it: `chunk` to the pipelining kinds (ring,
// torus2d, hierarchical_ring, tree, hierarchical_allreduce, hierarchical_halving_doubling), `grid`
// to torus2d, the parameter-server knobs (servers,
// placement, mode, replicas_to_aggregate, softsync, staleness_bound) to ps. A knob given flat
// beside `kind` must apply to that kind. For sweeps over several kinds, a section named after a
// kind carries that kind's knobs and is used when that kind runs:
//   strategy: { kind: ring, ps: { servers: 8, mode: async }, torus2d: { grid: [8, 16] } }
// Knobs of different kinds are separate fields of Strategy, so the sections need no merging when
// a sweep switches the kind; `chunk` is one value shared by the pipelining kinds and may be given
// once only.
#pragma once

#include <string>
#include <vector>

#include "core/plan/plan.hpp"
#include "core/plan/yaml_reader.hpp"

namespace scaleout::core {

// Whether `knob` is read by programs of `kind` (false for a name that is no knob).
bool knob_applies(const std::string& knob, StrategyKind kind);

// Reads `strategy` from the plan's top mapping. `will_run` lists the kinds named on the command
// line (--strategy, --strategies). Deprecated: a flat knob that does not apply to the plan's own
// kind but applies to one of `will_run` still loads, and a line is added to `warnings`; any other
// misplaced knob is an InputError naming the file, line and field.
Strategy read_strategy(YamlMap& plan, const std::vector<StrategyKind>& will_run,
                       std::vector<std::string>& warnings);

}  // namespace scaleout::core
