// Bus bandwidth of our strategy programs on this machine's GPUs against NCCL's all-reduce, by
// gradient size (1 MB to 1 GB), as nccl-tests reports it: for ring, halving_doubling and torus2d,
// each size runs `scaleout run --backend cuda` on every GPU and prints both busbw figures and their
// ratio. Needs two GPUs or more (NCCL refuses two ranks on one device): prints why and exits 77
// otherwise.
//
//   build/bench/bench_cuda_busbw [GPUS]
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

namespace fs = std::filesystem;

namespace {

// A plan whose fp32 gradient is `bytes` long and whose compute is negligible.
fs::path write_plan(const fs::path& dir, double bytes, const std::string& strategy) {
  fs::path plan = dir / ("busbw-" + strategy + ".yaml");
  std::ofstream(plan) << "cluster: " << SCALEOUT_SOURCE_DIR << "/topologies/dgx1-v100.yaml\n"
                      << "workload: { name: busbw, parameters: "
                      << static_cast<long long>(bytes / 4) << ", flops_per_sample: 1FLOP }\n"
                      << "strategy: { kind: " << strategy << " }\n"
                      << "training: { workers: 2, steps: 8, gradient_precision: fp32 }\n";
  return plan;
}

// busbw of our steps and of nccl_allreduce (GB/s), or false when the run failed.
bool measure(const fs::path& plan, int gpus, const fs::path& out, double& ours, double& nccl) {
  std::string command = std::string(SCALEOUT_BINARY) + " run " + plan.string() + " --workers " +
                        std::to_string(gpus) + " --backend cuda -o " + out.string() +
                        " > /dev/null";
  if (std::system(command.c_str()) != 0) return false;
  auto j = nlohmann::json::parse(std::ifstream(out));
  ours = j["busbw_Bps"].get<double>() / 1e9;
  for (const auto& b : j["baselines"])
    if (b["name"] == "nccl_allreduce") nccl = b["busbw_Bps"].get<double>() / 1e9;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  int gpus = 0;
  if (cudaGetDeviceCount(&gpus) != cudaSuccess) gpus = 0;
  if (argc > 1) gpus = std::min(gpus, std::atoi(argv[1]));
  if (gpus < 2) {
    std::printf("needs two GPUs or more (this machine: %d); NCCL refuses two ranks on one\n", gpus);
    return 77;
  }
  fs::path dir = fs::temp_directory_path() / "scaleout-bench-busbw";
  fs::create_directories(dir);
  std::printf("# %d GPUs; busbw in GB/s, the median of 8 steps; ratio = ours / NCCL's\n", gpus);
  std::printf("%-18s %12s %10s %10s %7s\n", "strategy", "bytes", "ours", "nccl", "ratio");
  for (const char* strategy : {"ring", "halving_doubling", "torus2d"})
    for (double bytes = 1 << 20; bytes <= (1 << 30); bytes *= 4) {
      double ours = 0, nccl = 0;
      if (!measure(write_plan(dir, bytes, strategy), gpus, dir / "measured.json", ours, nccl)) {
        std::printf("%-18s %12.0f   the run failed\n", strategy, bytes);
        continue;
      }
      std::printf("%-18s %12.0f %10.2f %10.2f %7.2f\n", strategy, bytes, ours, nccl,
                  nccl > 0 ? ours / nccl : 0.0);
    }
  fs::remove_all(dir);
  return 0;
}
