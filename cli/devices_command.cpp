#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "core/plan/device_presets.hpp"

namespace scaleout::cli {

namespace {

// "312" (TFLOP/s) for the type's peak, "-" where the device has none.
std::string peak_column(const core::DeviceSpec& d, const std::string& type) {
  for (const core::PeakRate& p : d.peaks)
    if (p.type == type) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.0f", p.flops / 1e12);
      return buf;
    }
  return "-";
}

void print_table(const std::vector<core::DevicePreset>& presets) {
  std::printf("%-16s %-22s %6s %6s %6s %6s %6s %8s %4s %7s %-9s %s\n", "preset", "name", "fp32",
              "tf32", "bf16", "fp16", "fp8", "memory", "SMs", "matmul", "link", "GB/s");
  std::printf("%-16s %-22s %34s %8s %4s %7s %-9s %s\n", "", "", "peak TFLOP/s (dense)", "GB", "",
              "ceiling", "", "");
  for (const core::DevicePreset& p : presets) {
    const core::DeviceSpec& d = p.device;
    char ceiling[16] = "-";
    if (d.matmul_ceiling > 0) std::snprintf(ceiling, sizeof ceiling, "%.3f", d.matmul_ceiling);
    std::printf("%-16s %-22s %6s %6s %6s %6s %6s %8.0f %4d %7s %-9s %.0f\n", p.id.c_str(),
                d.name.c_str(), peak_column(d, "fp32").c_str(), peak_column(d, "tf32").c_str(),
                peak_column(d, "bf16").c_str(), peak_column(d, "fp16").c_str(),
                peak_column(d, "fp8").c_str(), d.memory / 1e9, d.multiprocessors, ceiling,
                p.interconnect.c_str(), p.interconnect_bandwidth / 1e9);
  }
  std::printf("memory bandwidth, tiles and sources: scaleout devices --details\n");
}

void print_details(const std::vector<core::DevicePreset>& presets) {
  for (const core::DevicePreset& p : presets) {
    const core::DeviceSpec& d = p.device;
    std::printf(
        "%s (%s): %.0f GB at %.0f GB/s, %d multiprocessors, tile %dx%d, matmul ceiling "
        "%.3f",
        p.id.c_str(), d.name.c_str(), d.memory / 1e9, d.memory_bandwidth / 1e9, d.multiprocessors,
        d.tile_rows, d.tile_cols, d.matmul_ceiling);
    if (d.attention_ceiling > 0) std::printf(", attention ceiling %.3f", d.attention_ceiling);
    if (d.memory_ceiling > 0) std::printf(", memory ceiling %.2f", d.memory_ceiling);
    if (d.overlap_slowdown > 0) std::printf(", overlap slowdown %.3f", d.overlap_slowdown);
    std::printf("\n");
    for (const std::string& s : p.sources) std::printf("  source: %s\n", s.c_str());
  }
}

}  // namespace

Action add_devices_command(CLI::App& app) {
  auto details = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "devices",
      "List the bundled device presets (a topology names one as device: { preset: ID }).\n"
      "Example: scaleout devices --details");
  cmd->add_flag("--details", *details, "each preset's memory bandwidth, tile and sources");
  return [=]() {
    const auto& presets = core::bundled_device_presets();
    if (*details)
      print_details(presets);
    else
      print_table(presets);
    return 0;
  };
}

}  // namespace scaleout::cli
