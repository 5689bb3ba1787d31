// The progress line `simulate` prints: the count against the estimate, and the time left at the
// average rate so far.
#include "cli/sim_progress_line.hpp"

#include <gtest/gtest.h>

#include <string>

namespace scaleout::cli {
namespace {

sim::ProgressReport report(double sent, double estimated, double elapsed_s) {
  sim::ProgressReport r;
  r.messages = static_cast<std::uint64_t>(sent);
  r.estimated_messages = estimated;
  r.elapsed_s = elapsed_s;
  r.simulated_s = 0.5;
  return r;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(ProgressLine, SaysTheTimeLeftAtTheAverageRateSoFar) {
  // 5,000 a second, 100,000 left: 20 s.
  std::string line = progress_line(report(50000, 150000, 10));
  EXPECT_TRUE(has(line,
                  "simulating: 50,000 messages of about 150,000, 0.5 s simulated, 10 s, "
                  "about 20 s left at this rate"))
      << line;
  // 1e6 in a minute, 99e6 left: 5,940 s.
  line = progress_line(report(1e6, 1e8, 60));
  EXPECT_TRUE(has(line, "about 99 min left at this rate")) << line;
  line = progress_line(report(1e6, 6.01e8, 60));  // 600e6 left: 36,000 s
  EXPECT_TRUE(has(line, "about 10.0 h left at this rate")) << line;
}

TEST(ProgressLine, SaysNoTimeLeftTooEarlyOrPastTheEstimate) {
  EXPECT_FALSE(has(progress_line(report(5000, 150000, 1)), "left")) << "too few to judge a rate";
  EXPECT_FALSE(has(progress_line(report(200000, 150000, 10)), "left")) << "past the estimate";
  EXPECT_TRUE(has(progress_line(report(0, 150000, 2)), "no message sent yet"));
}

TEST(ProgressLine, SummaryGivesTheCountTheEstimateAndTheTime) {
  sim::ProgressReport r = report(1234567, 1300000, 12.34);
  r.finished = true;
  EXPECT_EQ(progress_summary(r),
            "simulated 1,234,567 messages (estimated about 1,300,000) in 12.3 s");
}

}  // namespace
}  // namespace scaleout::cli
