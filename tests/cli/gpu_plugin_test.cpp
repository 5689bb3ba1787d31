// The GPU backend is a plugin the program opens only when a command asks for a GPU: the program
// itself maps no CUDA or NCCL library, starts within a small address space, and when the plugin
// is missing or cannot be loaded it says so, naming the file and the loader's reason.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/command.hpp"
#include "tests/support/test_plans.hpp"

namespace {

namespace fs = std::filesystem;
using scaleout::testing::Output;
using scaleout::testing::shell;

const std::string kQuickstart = scaleout::testing::source_path("experiments/quickstart.yaml");

// A copy of the program in DIR/bin, as an installation without the GPU package holds it; DIR is
// the test's own (ctest runs tests side by side).
struct LoneProgram {
  fs::path root =
      fs::temp_directory_path() / (std::string("scaleout-lone-") +
                                   ::testing::UnitTest::GetInstance()->current_test_info()->name());
  fs::path program = root / "bin" / "scaleout";
  LoneProgram() {
    fs::remove_all(root);
    fs::create_directories(program.parent_path());
    fs::copy_file(SCALEOUT_BINARY, program);
  }
  ~LoneProgram() { fs::remove_all(root); }
  Output run_on_gpus() const {
    return shell(program.string() + " run " + kQuickstart +
                 " --workers 2 --backend cuda --no-baselines");
  }
};

TEST(GpuPlugin, TheProgramMapsNoGpuLibrary) {
  Output o = shell(std::string("ldd ") + SCALEOUT_BINARY);
  ASSERT_EQ(o.code, 0) << o.text;
  for (std::string gpu_library :
       {"libcudart", "libcublas", "libcusolver", "libnccl", "libnvJitLink"})
    EXPECT_EQ(o.text.find(gpu_library), std::string::npos) << gpu_library << " in\n" << o.text;
  EXPECT_NE(o.text.find("libyaml-cpp"), std::string::npos) << "ldd listed nothing: " << o.text;
}

TEST(GpuPlugin, TheProgramStartsWithinAGigabyteOfAddressSpace) {
  Output o = shell(std::string("ulimit -v 1000000; ") + SCALEOUT_BINARY + " --version");
  EXPECT_EQ(o.code, 0) << o.text;
}

TEST(GpuPlugin, AMissingPluginIsNamedWithWhereItWasLookedFor) {
  LoneProgram lone;
  Output o = lone.run_on_gpus();
  EXPECT_EQ(o.code, 2) << o.text;
  if (SCALEOUT_CUDA_BUILT) {
    EXPECT_NE(o.text.find("GPU backend is not installed"), std::string::npos) << o.text;
    EXPECT_NE(o.text.find((lone.root / "lib/scaleout/libscaleout-cuda.so").string()),
              std::string::npos)
        << o.text;
  } else {
    EXPECT_NE(o.text.find("no CUDA backend"), std::string::npos) << o.text;
  }
  // Commands that need no GPU run as before.
  Output sweep =
      shell(lone.program.string() + " simulate " + kQuickstart + " --engine analytic --workers 8");
  EXPECT_EQ(sweep.code, 0) << sweep.text;
}

TEST(GpuPlugin, APluginThatCannotBeLoadedSaysWhatTheLoaderSaid) {
  if (!SCALEOUT_CUDA_BUILT) GTEST_SKIP() << "this build has no GPU plugin";
  LoneProgram lone;
  fs::path plugin = lone.root / "lib/scaleout/libscaleout-cuda.so";
  fs::create_directories(plugin.parent_path());
  std::ofstream(plugin) << "not a shared object\n";
  Output o = lone.run_on_gpus();
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_NE(o.text.find(plugin.string() + " cannot be loaded: "), std::string::npos) << o.text;
  EXPECT_TRUE(o.text.find("invalid ELF header") != std::string::npos ||
              o.text.find("file too short") != std::string::npos)
      << o.text;
}

#ifdef SCALEOUT_FOREIGN_PLUGIN
TEST(GpuPlugin, APluginFromAnotherBuildIsRefused) {
  LoneProgram lone;
  fs::path plugin = lone.root / "lib/scaleout/libscaleout-cuda.so";
  fs::create_directories(plugin.parent_path());
  fs::copy_file(SCALEOUT_FOREIGN_PLUGIN, plugin);
  Output o = lone.run_on_gpus();
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_NE(o.text.find(plugin.string() + " comes from another build of scaleout"),
            std::string::npos)
      << o.text;
}
#endif

}  // namespace
