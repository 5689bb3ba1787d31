#include "core/formats/trace.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace scaleout::core {
namespace {

TEST(Trace, ChromeTraceEventsCarryTracksAndMicroseconds) {
  Trace t;
  int w = t.add_track("worker 0");
  int l = t.add_track("link node0-nic");
  t.span(w, "forward", "compute", 0.001, 0.002);
  t.counter(l, "utilization", 0.5, 0.75);
  auto j = nlohmann::json::parse(t.to_json("sim ring"));
  int spans = 0, counters = 0, names = 0;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "X") {
      ++spans;
      EXPECT_EQ(e["tid"], w);
      EXPECT_DOUBLE_EQ(e["ts"].get<double>(), 1000.0);
      EXPECT_DOUBLE_EQ(e["dur"].get<double>(), 2000.0);
    } else if (e["ph"] == "C") {
      ++counters;
      EXPECT_DOUBLE_EQ(e["args"]["utilization"].get<double>(), 0.75);
    } else if (e["name"] == "thread_name") {
      ++names;
    }
  }
  EXPECT_EQ(spans, 1);
  EXPECT_EQ(counters, 1);
  EXPECT_EQ(names, 2);
}

}  // namespace
}  // namespace scaleout::core
