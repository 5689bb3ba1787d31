// Unbounded work is refused before it starts, naming the knob: a 1-byte fusion buffer, an 8 KiB
// tree chunk, step fidelity at scale; a raised limit lets the same plan start.
#include "sim/work_estimate.hpp"

#include <gtest/gtest.h>

#include <string>

#include "analytic/analytic.hpp"
#include "core/plan/input_error.hpp"
#include "core/plan/plan_loader.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout::sim {
namespace {

core::Plan quickstart() {
  return core::load_plan(testing::source_path("experiments/quickstart.yaml"));
}

std::string refusal(const core::Plan& plan, Fidelity fidelity, double limit = kDefaultMaxEvents) {
  try {
    check_work(plan, fidelity, limit);
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "";
}

TEST(WorkEstimate, TheBundledPlansAreWellInsideTheLimit) {
  core::Plan p = quickstart();
  for (int n : {8, 64, 1024}) {
    p.training.workers = n;
    EXPECT_LT(estimate_work(p, Fidelity::kFast).messages, kDefaultMaxEvents / 10) << n;
  }
}

TEST(WorkEstimate, AOneByteFusionBufferIsRefusedNamingIt) {
  core::Plan p = quickstart();
  p.training.fusion_buffer = 1;
  p.training.fusion_line = 16;
  std::string why = refusal(p, Fidelity::kFast);
  EXPECT_NE(why.find("quickstart.yaml:16: field 'training.fusion_buffer'"), std::string::npos)
      << why;
  EXPECT_NE(why.find("--max-events"), std::string::npos) << why;
  // The analytic engine refuses it too, instead of allocating a bucket per byte.
  EXPECT_THROW(predict_analytic(p), core::InputError);
}

// An 8 KiB chunk at 64 workers sends 3.2 million messages (7 s here) and is let through.
TEST(WorkEstimate, ATwoKibTreeChunkIsRefusedNamingIt) {
  core::Plan p = quickstart();
  p.strategy.kind = core::StrategyKind::kTree;
  p.strategy.chunk = 2 * 1024;
  std::string why = refusal(p, Fidelity::kFast);
  EXPECT_NE(why.find("field 'strategy.chunk'"), std::string::npos) << why;
  EXPECT_EQ(refusal(p, Fidelity::kFast, 1e12), "");  // a raised limit lets it start
  p.strategy.chunk = 4.0 * 1024 * 1024;
  EXPECT_EQ(refusal(p, Fidelity::kFast), "");
}

TEST(WorkEstimate, StepFidelityAtScaleAndManyStepsAreRefusedNamingThem) {
  core::Plan p = quickstart();
  p.training.workers = 4096;
  EXPECT_NE(refusal(p, Fidelity::kStep).find("'--fidelity'"), std::string::npos);
  EXPECT_EQ(refusal(p, Fidelity::kFast), "");
  p.training.workers = 64;
  p.training.steps = 1000000;
  EXPECT_NE(refusal(p, Fidelity::kFast).find("'training.steps'"), std::string::npos);
}

}  // namespace
}  // namespace scaleout::sim
