// Plans written as YAML text in tests: a small inline cluster and workload, a temporary file,
// and the check that loading fails with an InputError naming the file, the line and a word.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <ostream>
#include <string>

#include "core/plan/input_error.hpp"
#include "core/plan/plan_loader.hpp"

namespace scaleout::testing {

// One malformed plan for a parameterized refusal test, and what its refusal must say.
struct Refusal {
  const char* name;
  std::string yaml;
  int line;
  const char* expect;
};
// Failures print the case's name, not its bytes.
inline void PrintTo(const Refusal& r, std::ostream* os) { *os << r.name; }

// Lines 1-7: 2 nodes of 8 devices; line 8: the workload. A plan's own lines start at line 9.
inline const char* kInlineCluster =
    "cluster:\n"
    "  name: c\n"
    "  devices_per_node: 8\n"
    "  device: { flops: 100TFLOPS }\n"
    "  intra_node: { bandwidth: 150GB/s, latency: 1us }\n"
    "  nic: { bandwidth: 100Gbps, latency: 2us }\n"
    "  nodes: 2\n";
inline const char* kInlineWorkload =
    "workload: { name: m, parameters: 10M, flops_per_sample: 1GFLOP }\n";

// A directory of its own under the temporary directory, removed when the object goes.
class TempDir {
 public:
  // The process id keeps tests that ctest runs side by side out of each other's folders.
  explicit TempDir(const std::string& name)
      : path_(std::filesystem::temp_directory_path() /
              ("scaleout-test-" + name + "-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::filesystem::path& path() const { return path_; }
  std::string write(const std::string& file, const std::string& text) const {
    std::ofstream(path_ / file) << text;
    return (path_ / file).string();
  }

 private:
  std::filesystem::path path_;
};

// Loads `yaml` as a plan and expects an InputError whose message names the file, `line` (when
// > 0) and contains `expect`.
inline void expect_refused(const std::string& name, const std::string& yaml, int line,
                           const std::string& expect, const core::PlanOverrides& overrides = {}) {
  TempDir dir(name);
  std::string file = dir.write("plan.yaml", yaml);
  try {
    core::load_plan(file, overrides);
    ADD_FAILURE() << name << ": loaded, expected an error containing '" << expect << "'";
  } catch (const core::InputError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find(file), std::string::npos) << name << ": " << msg;
    if (line > 0)
      EXPECT_NE(msg.find(":" + std::to_string(line) + ":"), std::string::npos)
          << name << ": " << msg;
    EXPECT_NE(msg.find(expect), std::string::npos) << name << ": " << msg;
  }
}

// Loads `yaml` as a plan, which must load.
inline core::Plan load_text(const std::string& name, const std::string& yaml,
                            const core::PlanOverrides& overrides = {}) {
  TempDir dir(name);
  return core::load_plan(dir.write("plan.yaml", yaml), overrides);
}

// Two nodes of 8 devices (100 TFLOP/s, 100 GB/s device links with 1 us, a `nic` NIC with 2 us, no
// latency factors: cm02), a small GPT of 8 layers (hidden 1024, 16 heads, sequence 1024) at
// `efficiency`, a ring, `workers` and `global_batch` sequences a step, bf16 gradients, 2 steps:
// the model-parallel engines' common ground.
inline std::string two_node_gpt(const std::string& parallelism, int workers, int global_batch,
                                const std::string& nic = "100Gbps",
                                const std::string& efficiency = "0.5") {
  return "cluster:\n"
         "  name: two-nodes\n"
         "  devices_per_node: 8\n"
         "  device: { name: X, flops: 100TFLOPS, memory: 80GB }\n"
         "  intra_node: { bandwidth: 100GB/s, latency: 1us }\n"
         "  nic: { bandwidth: " +
         nic +
         ", latency: 2us }\n"
         "  network_model: cm02\n"
         "workload:\n"
         "  name: gpt-small\n"
         "  efficiency: " +
         efficiency +
         "\n"
         "  transformer: { layers: 8, hidden: 1024, heads: 16, sequence: 1024, "
         "vocabulary: 32000 }\n"
         "parallelism: { " +
         parallelism +
         " }\n"
         "strategy: { kind: ring }\n"
         "training: { workers: " +
         std::to_string(workers) + ", global_batch: " + std::to_string(global_batch) +
         ", steps: 2, gradient_precision: bf16 }\n";
}

// A small transformer (8 layers, hidden 2048) on 32 devices of `memory` in 8-device nodes with
// 100 Gb/s NICs, 64 sequences a step: searched, refined and swept by the split tests.
inline core::Plan small_transformer_plan(const std::string& name, const std::string& memory) {
  return load_text(
      name,
      "cluster:\n  name: c\n  devices_per_node: 8\n"
      "  device: { name: X, flops: 100TFLOPS, memory: " +
          memory +
          " }\n"
          "  intra_node: { bandwidth: 100GB/s, latency: 1us }\n"
          "  nic: { bandwidth: 100Gbps, latency: 2us }\n"
          "workload:\n  name: gpt\n  efficiency: 0.5\n"
          "  transformer: { layers: 8, hidden: 2048, heads: 16, sequence: 1024, vocabulary: 32000 "
          "}\n"
          "parallelism: { tensor: 1 }\n"
          "strategy: { kind: ring }\n"
          "training: { workers: 32, global_batch: 64, gradient_precision: bf16 }\n");
}

}  // namespace scaleout::testing
