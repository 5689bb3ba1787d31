#include "core/reliability/failure_model.hpp"

#include <gtest/gtest.h>

namespace scaleout::core {
namespace {

TEST(FailureModel, NoFailureCostsOnlyCheckpoints) {
  Resilience r;
  r.checkpoint_every = 5;
  r.checkpoint_cost = 0.5;
  ResilienceOutcome f = restart_from_checkpoint(std::vector<double>(20, 1.0), r, 100);
  EXPECT_EQ(f.policy, "none");
  EXPECT_DOUBLE_EQ(f.wall_s, 20 + 3 * 0.5);  // after steps 5, 10, 15 (not after the last)
  EXPECT_DOUBLE_EQ(f.lost_work_s, 0);
  EXPECT_DOUBLE_EQ(f.goodput_samples_per_s, 20 * 100 / f.wall_s);
}

TEST(FailureModel, AFailureLosesTheWorkSinceTheLastCheckpointAndTheRestart) {
  Resilience r;
  r.checkpoint_every = 5;
  r.restart_time = 30;
  r.failures = {{0, 8, -1, 0}};  // before step 8: steps 5, 6, 7 are lost
  ResilienceOutcome f = restart_from_checkpoint(std::vector<double>(20, 2.0), r, 10);
  EXPECT_EQ(f.policy, "restart_from_checkpoint");
  EXPECT_EQ(f.failures, 1);
  EXPECT_DOUBLE_EQ(f.lost_work_s, 3 * 2.0);
  EXPECT_DOUBLE_EQ(f.wall_s, 20 * 2.0 + 3 * 2.0 + 30);
  EXPECT_LE(f.lost_work_s, r.checkpoint_every * 2.0);
}

TEST(FailureModel, TimedFailureLosesThePartialStepToo) {
  Resilience r;
  r.checkpoint_every = 4;
  r.restart_time = 1;
  r.failures = {{0, -1, 9.5, 0}};  // during step 9 (t in [9, 10)); the checkpoint after step 8
  ResilienceOutcome f = restart_from_checkpoint(std::vector<double>(12, 1.0), r, 1);
  EXPECT_DOUBLE_EQ(f.lost_work_s, 1.0 + 0.5);  // step 8 and half of step 9
  EXPECT_DOUBLE_EQ(f.wall_s, 9.5 + 1 + (12 - 8));
}

TEST(FailureModel, WithoutCheckpointsEverythingIsLost) {
  Resilience r;
  r.failures = {{0, 6, -1, 0}};
  ResilienceOutcome f = restart_from_checkpoint(std::vector<double>(10, 1.0), r, 1);
  EXPECT_DOUBLE_EQ(f.lost_work_s, 6);
  EXPECT_DOUBLE_EQ(f.wall_s, 16);
}

// The closed form for identical steps equals the replay, with and without checkpoints.
TEST(FailureModel, UniformStepsInClosedFormEqualTheReplay) {
  for (int every : {0, 1, 3, 7})
    for (long steps : {1L, 2L, 10L, 21L}) {
      Resilience r;
      r.checkpoint_every = every;
      r.checkpoint_cost = 0.25;
      ResilienceOutcome replay = restart_from_checkpoint(std::vector<double>(steps, 1.5), r, 10);
      ResilienceOutcome closed = restart_uniform_steps(steps, 1.5, r, 10);
      EXPECT_DOUBLE_EQ(closed.wall_s, replay.wall_s) << every << " " << steps;
      EXPECT_DOUBLE_EQ(closed.checkpoint_s, replay.checkpoint_s);
      EXPECT_DOUBLE_EQ(closed.goodput_samples_per_s, replay.goodput_samples_per_s);
    }
}

}  // namespace
}  // namespace scaleout::core
