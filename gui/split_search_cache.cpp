// The split search's answers the window draws, kept across edits of the split (see the header).
#include "gui/split_search_cache.hpp"

#include "core/plan/plan_writer.hpp"

namespace scaleout::gui {

// The search starts from the plan with its global batch held and without its split, at each size
// in turn; of the split it keeps only the framework (sim::search_at).
void SplitSearchCache::key_on(const core::Plan& plan) {
  core::Plan searched = sim::with_global_batch(plan);
  std::optional<core::Framework> framework;
  if (searched.parallelism) framework = searched.parallelism->framework;
  searched.parallelism = core::Parallelism{};
  searched.parallelism->framework = framework;
  searched.training.workers = 1;
  std::string key = core::plan_to_yaml(searched);
  if (key == key_) return;
  key_ = std::move(key);
  sizes_.clear();
  best_.clear();
  top_.clear();
}

const std::vector<sim::SizeBest>& SplitSearchCache::best_per_size(const core::Plan& plan,
                                                                  const std::vector<int>& sizes) {
  key_on(plan);
  if (sizes != sizes_ || best_.size() != sizes.size()) {
    best_ = sim::best_split_per_size(sim::with_global_batch(plan), sizes);
    sizes_ = sizes;
    searches_ += static_cast<long>(sizes.size());
  }
  return best_;
}

const std::vector<sim::SplitCandidate>& SplitSearchCache::top_at(const core::Plan& plan,
                                                                 int workers, int top) {
  key_on(plan);
  auto [at, fresh] = top_.try_emplace({workers, top});
  if (fresh) {
    sim::SplitSearchOptions options;
    options.top = top;
    at->second = sim::search_at(sim::with_global_batch(plan), workers, options).best;
    ++searches_;
  }
  return at->second;
}

}  // namespace scaleout::gui
