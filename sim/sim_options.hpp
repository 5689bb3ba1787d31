// The SimGrid engine's options as its callers set them (the command line, the drivers through
// explore/engine.hpp): the fidelity, the cap on messages, the engine's shortcuts.
#pragma once

#include <string>
#include <vector>

#include "sim/rail_bundle.hpp"

namespace scaleout::sim {

// fast: a run of ring steps with fixed peers is one message per direction plus the steps'
// latencies (see SimWorld::coalesce); step: every step is its own message.
enum class Fidelity { kFast, kStep };

// "fast" | "step"; throws core::InputError naming `field` for anything else.
Fidelity parse_fidelity(const std::string& text, const std::string& field = "fidelity");
const char* fidelity_name(Fidelity fidelity);

// The most messages a simulation may send before it is refused: ten seconds to five minutes on one
// core here (a message costs about 2 us as a tree's chunk, 60 us as a 16,384-rank ring's phase).
constexpr double kDefaultMaxEvents = 5e6;

// The engine's shortcuts, each turned off to compare it with the plain way (the tests do); the
// answer must not change.
struct SimShortcuts {
  bool flat_zone = true;        // one zone for a cluster on one switch, not a zone per node
  int direct_transfers = 0;     // a rank's own transfers before relays post the rest; 0: default
  bool release_taken = true;    // taken sends leave at once; stages receive ahead (model-parallel)
  long long max_map_count = 0;  // plan actor stacks for this vm.max_map_count; 0: the system's
  // Rails bundled into one NIC from this many stand-in transfers (sim/rail_bundle.hpp).
  long long bundle_rails_from = kBundleRailsFrom;
};

struct SimOptions {
  Fidelity fidelity = Fidelity::kFast;
  std::string trace_path;                 // Chrome trace to write; empty for none
  double max_events = kDefaultMaxEvents;  // sim/work_estimate.hpp: refused beyond this
  SimShortcuts shortcuts;
  // SimGrid's own options, "name:value" each (simulate --simgrid-cfg), set after the plan's.
  std::vector<std::string> simgrid_config;
};

}  // namespace scaleout::sim
