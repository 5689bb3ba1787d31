// Where the simulation's actor stacks live, chosen so that the machine's default limits suffice,
// and the refusal, before anything starts, of a size that cannot run within them.
//
// Every rank is an actor with a stack of its own (two with overlap: the rank and its compute
// stream). SimGrid's default puts each stack in its own memory mapping with a guard page, which
// costs two of the process's vm.max_map_count mappings (65,530 by default): 16,384 ranks with
// overlap would need 65,536. When the guarded stacks fit in the mappings left, they are kept
// (a stack overflow then stops the run); otherwise the stacks are carved, without guard pages,
// out of the heap, which is one mapping however many actors there are.
#pragma once

#include <cstdint>
#include <string>

namespace scaleout::sim {

// What the process may use, read before the engine starts.
struct ProcessLimits {
  std::int64_t max_map_count = 0;      // vm.max_map_count, or the caller's stand-in for it
  std::int64_t maps_in_use = 0;        // lines of /proc/self/maps
  std::uint64_t address_space = 0;     // RLIMIT_AS (ulimit -v), bytes; UINT64_MAX when unlimited
  std::uint64_t data = 0;              // RLIMIT_DATA (ulimit -d), bytes; UINT64_MAX when unlimited
  std::uint64_t memory_available = 0;  // MemAvailable of /proc/meminfo, bytes; 0 when unknown
};

// `max_map_count` > 0 stands in for the system's vm.max_map_count (the CLI's
// SCALEOUT_MAX_MAP_COUNT, with which tests try a lower limit).
ProcessLimits read_process_limits(long long max_map_count = 0);

struct StackPlan {
  std::int64_t actors = 0;
  std::uint64_t stack_bytes = 0;
  bool guard_pages = true;  // false: stacks from the heap, without guard pages
  std::uint64_t address_space_needed = 0;
  std::uint64_t memory_needed = 0;  // estimated peak resident memory
};

// Chooses the stacks for `actors` actors of `stack_bytes` each. Throws core::InputError naming
// `plan_file`, the limit (vm.max_map_count, ulimit -v, ulimit -d, the memory available) and what
// to do when the simulation cannot run within the limits.
StackPlan plan_stacks(std::int64_t actors, std::uint64_t stack_bytes, const ProcessLimits& limits,
                      const std::string& plan_file = "");

// Applies the plan to SimGrid's context options and the allocator. REQUIRES: called once, in the
// simulating process, after the engine was created and before any actor.
void apply_stack_plan(const StackPlan& plan);

}  // namespace scaleout::sim
