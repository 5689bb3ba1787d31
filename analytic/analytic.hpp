// The analytic engine: closed forms (alpha-beta) for every strategy on the plan's topology, giving
// the same result keys as the simulator in microseconds. It counts how many flows share each NIC
// but not contention deeper in the network (uplinks, fabric links): that is the simulator's job.
// It applies LV08's corrections (latency, bandwidth, cross-traffic) and the IB model's factors by
// message size, but not the IB model's penalties for hosts with several flows at once.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/model/network_factors.hpp"
#include "core/model/step_model.hpp"
#include "core/plan/plan.hpp"
#include "core/plan/topology.hpp"
#include "core/results/result.hpp"

namespace scaleout::sim {

class AnalyticModel {
 public:
  // Builds the topology once, large enough for `max_devices` devices, so that many predictions
  // (a sweep) share it. REQUIRES: every plan later passed to predict() uses this cluster.
  AnalyticModel(const core::Cluster& cluster, int max_devices);

  // Predicts `plan`. Throws core::InputError when the strategy cannot run on the layout. The
  // result's warnings say where the closed form is outside the range a test holds it to.
  core::RunResult predict(const core::Plan& plan) const;

  // Time of one all-reduce of `bytes` with the plan's strategy and workers (no compute).
  double exchange_time(const core::Plan& plan, double bytes) const;

 private:
  core::RunResult predict_closed_form(const core::Plan& plan) const;
  core::RunResult assemble(const core::Plan& plan, const core::StepModel& m, double step,
                           double comm, int applied_per_step) const;
  core::RunResult predict_async_ps(const core::Plan& plan, const core::StepModel& m,
                                   double flops) const;

  core::Cluster cluster_;
  core::Topology topo_;
  double latency_factor_ = 1;
  double bandwidth_factor_ = 1;
  double cross_traffic_ = 1;
  core::NetworkFactors sized_;  // ib: factors by message size
};

// The plan's features that the closed forms do not cover as tested (empty when none).
std::vector<std::string> analytic_warnings(const core::Plan& plan);

// One-off convenience: AnalyticModel(plan.cluster, devices_needed(plan)).predict(plan).
core::RunResult predict_analytic(const core::Plan& plan);

}  // namespace scaleout::sim
