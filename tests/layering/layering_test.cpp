// The libraries' dependencies flow one way (DESIGN.md, "Layout"): core knows no engine; the
// engines (sim/ on SimGrid, analytic/ in closed form, exec/ for real) use core and never each
// other; the drivers (explore/) use the engines and nothing above them; the closed forms need no
// SimGrid; nothing below cli/ and gui/ includes Qt. This binary links scaleout_analytic without
// SimGrid: if the closed forms used the simulator, it would not link.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "analytic/analytic.hpp"
#include "tests/support/test_plans.hpp"

namespace scaleout {
namespace {

namespace fs = std::filesystem;

// "file: #include ..." for every include in `dir` that matches `forbidden`.
std::vector<std::string> includes_matching(const std::string& dir, const std::regex& forbidden,
                                           const std::string& except_file = "") {
  std::vector<std::string> found;
  const std::regex include(R"(^\s*#\s*include\s*[<"]([^>"]+)[>"])");
  const fs::path root = fs::path(SCALEOUT_SOURCE_DIR) / dir;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    auto ext = entry.path().extension();
    if (ext != ".cpp" && ext != ".hpp" && ext != ".cu") continue;
    if (!except_file.empty() && entry.path().filename() != except_file) continue;
    std::ifstream in(entry.path());
    std::smatch m;
    for (std::string line; std::getline(in, line);)
      if (std::regex_search(line, m, include) && std::regex_search(m[1].str(), forbidden))
        found.push_back(fs::relative(entry.path(), root).string() + ": " + line);
  }
  return found;
}

TEST(Layering, CoreKnowsNoEngine) {
  EXPECT_EQ(
      includes_matching(
          "core", std::regex(R"(^(sim|analytic|explore|exec|cli|gui)/|simgrid|gloo|cuda|nccl|^Q)")),
      std::vector<std::string>{});
}

// NCCL's calls and grouping belong to the backends: no core file writes their names in code
// (comments may cite NCCL's published algorithms).
TEST(Layering, CoreHoldsNoNcclScheduling) {
  std::vector<std::string> found;
  const std::regex nccl_call(R"(nccl(Send|Recv|GroupStart|GroupEnd|AllReduce)\b)");
  for (const auto& entry :
       fs::recursive_directory_iterator(fs::path(SCALEOUT_SOURCE_DIR) / "core")) {
    std::ifstream in(entry.path());
    for (std::string line; std::getline(in, line);) {
      std::string code = line.substr(0, line.find("//"));
      if (std::regex_search(code, nccl_call))
        found.push_back(entry.path().filename().string() + ": " + line);
    }
  }
  EXPECT_EQ(found, std::vector<std::string>{});
}

// No engine includes another engine's files, the drivers' or the programs'.
TEST(Layering, EnginesNeverIncludeEachOther) {
  EXPECT_EQ(includes_matching("sim",
                              std::regex(R"(^(analytic|explore|exec|cli|gui)/|gloo|cuda|nccl|^Q)")),
            std::vector<std::string>{});
  EXPECT_EQ(includes_matching("exec", std::regex(R"(^(sim|analytic|explore|cli|gui)/|simgrid|^Q)")),
            std::vector<std::string>{});
  EXPECT_EQ(includes_matching("analytic",
                              std::regex(R"(^(sim|explore|exec|cli|gui)/|gloo|cuda|nccl|^Q)")),
            std::vector<std::string>{});
}

// The drivers reach the engines through the Engine interface (explore/engine.hpp) alone: only its
// two engines (explore/engines/) include an engine's headers; the rest may name the SimGrid
// engine's options and progress, which a caller passes through.
TEST(Layering, DriversReachTheEnginesThroughTheEngineInterface) {
  std::vector<std::string> found;
  const std::regex engine_header(R"(^analytic/|^sim/(?!sim_options\.hpp|sim_progress\.hpp))");
  for (const auto& f : includes_matching("explore", engine_header))
    if (f.rfind("engines/", 0) != 0) found.push_back(f);
  EXPECT_EQ(found, std::vector<std::string>{});
  // The interface itself is there.
  EXPECT_TRUE(fs::exists(fs::path(SCALEOUT_SOURCE_DIR) / "explore" / "engine.hpp"));
  EXPECT_FALSE(includes_matching("explore", std::regex("^analytic/")).empty());
}

// core/ is in rooms (plan, parallel, programs, codecs, model, reliability, formats, results,
// files): no source sits at its top.
TEST(Layering, CoreSourcesLiveInRooms) {
  std::vector<std::string> loose;
  for (const auto& entry : fs::directory_iterator(fs::path(SCALEOUT_SOURCE_DIR) / "core")) {
    auto ext = entry.path().extension();
    if (ext == ".cpp" || ext == ".hpp") loose.push_back(entry.path().filename().string());
  }
  EXPECT_EQ(loose, std::vector<std::string>{});
}

// The drivers run the engines; they never include the programs or the real runs.
TEST(Layering, DriversIncludeNoProgram) {
  EXPECT_EQ(includes_matching("explore", std::regex(R"(^(exec|cli|gui)/|gloo|cuda|nccl|^Q)")),
            std::vector<std::string>{});
}

TEST(Layering, OnlyExecCudaIncludesCudaOrNccl) {
  // Everything else builds without nvcc and without the toolkit's headers.
  const std::regex device(R"(^(cuda_|cuda\.h|nccl\.h|exec/cuda/))");
  std::vector<std::string> found;
  for (const char* dir : {"core", "sim", "analytic", "explore", "cli"})
    for (const auto& f : includes_matching(dir, device)) found.push_back(f);
  // exec/'s own files (names differ from those under exec/cuda/).
  for (const auto& entry : fs::directory_iterator(fs::path(SCALEOUT_SOURCE_DIR) / "exec"))
    if (entry.is_regular_file())
      for (const auto& f : includes_matching("exec", device, entry.path().filename().string()))
        found.push_back(f);
  EXPECT_EQ(found, std::vector<std::string>{});
}

TEST(Layering, TheAnalyticModelIncludesCoreOnly) {
  // Core and the closed forms' own files; never the simulator.
  EXPECT_EQ(
      includes_matching("analytic", std::regex(R"(^(sim|explore|exec|cli|gui)/|simgrid|xbt)")),
      std::vector<std::string>{});
}

TEST(Layering, TheAnalyticModelRunsWithoutTheSimulator) {
  core::Plan plan = testing::collective_plan(testing::switch_cluster(1, 1e9, 1e-6),
                                             core::StrategyKind::kRing, 4, 1e6);
  core::RunResult r = sim::predict_analytic(plan);
  EXPECT_EQ(r.engine, "analytic");
  EXPECT_GT(r.step_time_s, 0);
}

}  // namespace
}  // namespace scaleout
