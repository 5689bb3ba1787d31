// Factories of the individual strategies (one file each). Use make_strategy() from strategy.hpp.
#pragma once

#include <memory>

#include "core/programs/strategy.hpp"

namespace scaleout::core {

std::unique_ptr<StrategyProgram> make_ring(const RankLayout& layout);
// The ring with the plan's training.compression (on): compressed_ring.cpp.
std::unique_ptr<StrategyProgram> make_compressed_ring(const Plan& plan, const RankLayout& layout);
std::unique_ptr<StrategyProgram> make_torus2d(const RankLayout& layout, std::array<int, 2> grid);
std::unique_ptr<StrategyProgram> make_hierarchical_ring(const Plan& plan, const RankLayout& layout);
std::unique_ptr<StrategyProgram> make_halving_doubling(const RankLayout& layout);
std::unique_ptr<StrategyProgram> make_tree(const RankLayout& layout, std::int64_t chunk_elements);
std::unique_ptr<StrategyProgram> make_ps(const RankLayout& layout);
std::unique_ptr<StrategyProgram> make_compressed_ps(const Plan& plan, const RankLayout& layout);
// The same aggregated per node (BytePS's layout: core/programs/strategies/compressed_ps_local.cpp).
std::unique_ptr<StrategyProgram> make_compressed_ps_local(const Plan& plan,
                                                          const RankLayout& layout);
std::unique_ptr<StrategyProgram> make_hierarchical_allreduce(const RankLayout& layout,
                                                             std::int64_t chunk_elements);
std::unique_ptr<StrategyProgram> make_hierarchical_halving_doubling(const RankLayout& layout,
                                                                    std::int64_t chunk_elements);
// The same, with the workers of each node aggregating inside it (`local_aggregation: node`).
std::unique_ptr<StrategyProgram> make_ps_local(const RankLayout& layout);

}  // namespace scaleout::core
