#include "core/codecs/delay_compensation.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <stdexcept>
#include <string>

#include "core/model/step_model.hpp"
#include "core/programs/strategy.hpp"

namespace scaleout::core {

void compensated_update(float* w, const float* g, const float* pulled, std::int64_t count,
                        float lambda, float learning_rate) {
  for (std::int64_t i = 0; i < count; ++i) {
    float compensation = lambda * g[i] * g[i] * (w[i] - pulled[i]);
    w[i] -= learning_rate * (g[i] + compensation);
  }
}

namespace {

std::int64_t largest_shard(std::int64_t elements, int servers) {
  return split_part(Span{0, elements}, servers, 0).count;  // the first shards are the larger
}

}  // namespace

std::optional<CompensationCost> compensation_cost(const Plan& plan) {
  const DelayCompensation& dc = plan.strategy.delay_compensation;
  if (!dc.on) return std::nullopt;
  auto shard = static_cast<double>(
      largest_shard(gradient_elements(plan), std::max(1, plan.strategy.ps_servers)));
  const HostCosts& host = plan.cluster.host;
  CompensationCost c;
  c.lambda = dc.lambda;
  c.learning_rate = dc.learning_rate;
  c.update_s = shard / host.compensate_rate;
  c.pulled_bytes = shard * 4 * plan.training.workers;
  return c;
}

std::int64_t compensation_scratch_words(const Plan& plan, std::int64_t elements, int servers) {
  if (!plan.strategy.delay_compensation.on) return 0;
  return largest_shard(elements, std::max(1, servers)) * plan.training.workers;
}

std::vector<float> replay_compensated_shard(
    const DelayCompensation& dc, std::int64_t count, const std::vector<AppliedGradient>& applied,
    const std::function<float(int, std::int64_t)>& gradient) {
  int oldest = 0;  // the most versions back an update looks
  for (const auto& a : applied) oldest = std::max(oldest, a.staleness);
  std::deque<std::vector<float>> recent(1, std::vector<float>(count, 0.0f));  // ends at `now`
  std::map<int, std::vector<float>> gradients;
  for (std::size_t k = 0; k < applied.size(); ++k) {
    const AppliedGradient& a = applied[k];
    if (a.staleness < 0 || static_cast<std::size_t>(a.staleness) > k)
      throw std::invalid_argument("update " + std::to_string(k) + " has staleness " +
                                  std::to_string(a.staleness) + ", which no pull can have seen");
    auto [g, fresh] = gradients.try_emplace(a.worker, count);
    if (fresh)
      for (std::int64_t i = 0; i < count; ++i) g->second[i] = gradient(a.worker, i);
    std::vector<float> w = recent.back();
    const std::vector<float>& pulled = recent[recent.size() - 1 - a.staleness];
    compensated_update(w.data(), g->second.data(), pulled.data(), count,
                       static_cast<float>(dc.lambda), static_cast<float>(dc.learning_rate));
    recent.push_back(std::move(w));
    if (recent.size() > static_cast<std::size_t>(oldest) + 1) recent.pop_front();
  }
  return recent.back();
}

}  // namespace scaleout::core
