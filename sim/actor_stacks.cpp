#include "sim/actor_stacks.hpp"

#include <malloc.h>
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <simgrid/s4u.hpp>
#include <sstream>

#include "core/plan/input_error.hpp"

namespace scaleout::sim {

namespace {

constexpr std::uint64_t kPage = 4096;
// Mappings kept free for what else the process maps (libraries, large buffers, the trace).
constexpr std::int64_t kSpareMaps = 2048;
// Address space beside the stacks: the program, libraries, platform and results.
constexpr std::uint64_t kBaseAddressSpace = 1ULL << 30;
// Resident memory: measured peaks are about 14 KiB per actor on top of ~60 MB (ring, torus2d,
// hierarchical ring at 4,096 to 16,384 ranks); the estimate leaves room for more.
constexpr std::uint64_t kBaseMemory = 128ULL << 20;
constexpr std::uint64_t kMemoryPerActor = 32ULL << 10;

std::uint64_t rlimit_bytes(int resource) {
  rlimit r{};
  if (::getrlimit(resource, &r) != 0 || r.rlim_cur == RLIM_INFINITY)
    return std::numeric_limits<std::uint64_t>::max();
  return r.rlim_cur;
}

std::int64_t number_in(const std::string& path) {
  std::ifstream in(path);
  std::int64_t v = 0;
  return in >> v ? v : 0;
}

std::uint64_t mem_available() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return 0;
}

std::string gib(std::uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(bytes) / (1ULL << 30));
  return buf;
}

[[noreturn]] void refuse(const StackPlan& p, const std::string& file, const std::string& limit,
                         const std::string& what) {
  throw core::InputError(file, 0, "training.workers",
                         "the simulation cannot run within " + limit + ": its " +
                             std::to_string(p.actors) +
                             " actors (one per rank, and the simulator's own) need " + what);
}

}  // namespace

ProcessLimits read_process_limits(long long max_map_count) {
  ProcessLimits l;
  l.max_map_count = max_map_count > 0 ? max_map_count : number_in("/proc/sys/vm/max_map_count");
  if (l.max_map_count <= 0) l.max_map_count = 65530;  // the kernel's default
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) ++l.maps_in_use;
  l.address_space = rlimit_bytes(RLIMIT_AS);
  l.data = rlimit_bytes(RLIMIT_DATA);
  l.memory_available = mem_available();
  return l;
}

StackPlan plan_stacks(std::int64_t actors, std::uint64_t stack_bytes, const ProcessLimits& l,
                      const std::string& file) {
  StackPlan p;
  p.actors = actors;
  p.stack_bytes = stack_bytes;
  std::int64_t free_maps = l.max_map_count - l.maps_in_use - kSpareMaps;
  p.guard_pages = 2 * actors <= free_maps;  // a mapping and its split-off guard page each
  std::uint64_t stacks = static_cast<std::uint64_t>(actors) * (stack_bytes + kPage);
  p.address_space_needed = kBaseAddressSpace + stacks;
  p.memory_needed = kBaseMemory + static_cast<std::uint64_t>(actors) * kMemoryPerActor;
  if (free_maps < 0)
    refuse(p, file,
           "vm.max_map_count (" + std::to_string(l.max_map_count) + ", " +
               std::to_string(l.maps_in_use) + " in use)",
           "a few mappings more than are left: raise it (sudo sysctl -w vm.max_map_count=262144)");
  if (p.address_space_needed > l.address_space)
    refuse(p, file, "the address space limit (ulimit -v: " + gib(l.address_space) + ")",
           "about " + gib(p.address_space_needed) + " for their stacks of " +
               std::to_string(stack_bytes / 1024) +
               " KiB and the program: raise it (ulimit -v unlimited) or simulate fewer workers");
  if (!p.guard_pages && stacks > l.data)
    refuse(p, file, "the data size limit (ulimit -d: " + gib(l.data) + ")",
           "about " + gib(stacks) +
               " of heap for their stacks: raise it (ulimit -d unlimited) "
               "or simulate fewer workers");
  if (l.memory_available > 0 && p.memory_needed > l.memory_available)
    refuse(p, file, "the memory available (" + gib(l.memory_available) + ")",
           "about " + gib(p.memory_needed) +
               " (an estimate): free memory, use a larger machine or simulate fewer workers "
               "(or use --engine analytic)");
  return p;
}

void apply_stack_plan(const StackPlan& p) {
  simgrid::s4u::Engine::set_config("contexts/stack-size:" + std::to_string(p.stack_bytes / 1024));
  if (p.guard_pages) return;
  simgrid::s4u::Engine::set_config("contexts/guard-size:0");
  // SimGrid then takes each stack from calloc. Served from the heap (below the mmap threshold,
  // which also stops adapting), a stack is one more piece of the heap's single mapping; with no
  // top padding, calloc clears only the few bytes of the heap's old top, not the fresh pages, so a
  // stack costs resident memory only for the pages its actor touches.
  ::mallopt(M_MMAP_THRESHOLD, 32 << 20);
  ::mallopt(M_TOP_PAD, 0);
}

}  // namespace scaleout::sim
