// Fuzz target for the plan loader: any bytes as a plan file must load, or be refused with a
// core::InputError (the CLI's exit 2). Anything else (another exception, a crash, a sanitizer
// report, a hang past libFuzzer's -timeout) is a finding. The plan is written as experiments/
// fuzz.yaml in a scratch folder beside links to the repository's topologies/ and models/, so that
// the bundled plans of the seed corpus load whole, includes and all.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/model/step_model.hpp"
#include "core/plan/input_error.hpp"
#include "core/plan/plan_loader.hpp"

namespace fs = std::filesystem;

namespace {

fs::path plan_path() {
  static const fs::path path = [] {
    const char* tmp = std::getenv("TMPDIR");
    fs::path dir =
        fs::path(tmp && *tmp ? tmp : "/tmp") / ("scaleout-fuzz-" + std::to_string(::getpid()));
    fs::create_directories(dir / "experiments");
    for (const char* data : {"topologies", "models"}) {
      std::error_code ec;
      fs::create_directory_symlink(fs::path(SCALEOUT_SOURCE_DIR) / data, dir / data, ec);
    }
    return dir / "experiments" / "fuzz.yaml";
  }();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  {
    std::ofstream out(plan_path(), std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    scaleout::core::Plan plan = scaleout::core::load_plan(plan_path().string());
    scaleout::core::count_buckets(plan);  // what every engine does first with a loaded plan
  } catch (const scaleout::core::InputError&) {
    // refused with file, line and field: the CLI's exit 2
  } catch (const std::exception& e) {
    std::fprintf(stderr, "not an input error (the CLI would exit 1): %s\n", e.what());
    std::abort();
  }
  return 0;
}
