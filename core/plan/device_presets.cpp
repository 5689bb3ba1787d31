#include "core/plan/device_presets.hpp"

#include <algorithm>

#include "core/files/bundled_data.hpp"
#include "core/plan/input_error.hpp"

namespace scaleout::core {

const std::vector<std::string>& peak_types() {
  static const std::vector<std::string> types = {"fp64", "fp32", "tf32", "bf16", "fp16", "fp8"};
  return types;
}

namespace {

constexpr const char* kPresetsFile = "devices/presets.yaml";

const PeakRate* peak_of(const DeviceSpec& d, const std::string& type) {
  for (const PeakRate& p : d.peaks)
    if (p.type == type) return &p;
  return nullptr;
}

// The data type a plan computes in when it does not say: bf16, else fp16, else the first listed.
std::string default_type(const DeviceSpec& d) {
  for (const char* type : {"bf16", "fp16"})
    if (peak_of(d, type)) return type;
  return d.peaks.front().type;
}

std::string peak_list(const DeviceSpec& d) {
  std::string out;
  for (const PeakRate& p : d.peaks) out += (out.empty() ? "" : ", ") + p.type;
  return out;
}

void read_peaks(YamlMap& m, DeviceSpec& d) {
  YamlMap peaks(m.child("peak"), m.file(), m.field("peak"));
  std::vector<PeakRate> read;
  for (const std::string& type : peak_types())
    if (peaks.has(type)) read.push_back({type, peaks.get_quantity(type, Quantity::kFlops)});
  peaks.finish();
  if (read.empty()) m.fail("peak", "give the peak of at least one of fp32, tf32, bf16, fp16, fp8");
  d.peaks = read;
}

void read_tile(YamlMap& m, DeviceSpec& d) {
  YAML::Node tile = m.child("matmul_tile");
  auto rows = tile.IsSequence() && tile.size() == 2 ? read_whole(tile[0], 16, 1024) : std::nullopt;
  auto cols = tile.IsSequence() && tile.size() == 2 ? read_whole(tile[1], 16, 1024) : std::nullopt;
  if (!rows || !cols) m.fail("matmul_tile", "expected [rows, columns], each from 16 to 1024");
  d.tile_rows = static_cast<int>(*rows);
  d.tile_cols = static_cast<int>(*cols);
}

// The fields a preset and a topology's device share; each one written replaces what `d` holds.
void read_figures(YamlMap& m, DeviceSpec& d) {
  if (m.has("name")) d.name = m.get_string("name");
  if (m.has("peak")) read_peaks(m, d);
  if (m.has("memory")) {
    d.memory = m.get_quantity("memory", Quantity::kBytes);
    d.memory_line = line_of(m.node()["memory"]);
  }
  if (m.has("memory_bandwidth"))
    d.memory_bandwidth = m.get_quantity("memory_bandwidth", Quantity::kBandwidth);
  if (m.has("multiprocessors")) d.multiprocessors = m.get_int("multiprocessors", 1, 100000);
  if (m.has("matmul_tile")) read_tile(m, d);
  if (m.has("matmul_ceiling")) d.matmul_ceiling = m.get_double("matmul_ceiling", 0.05, 1.0);
  if (m.has("attention_ceiling"))
    d.attention_ceiling = m.get_double("attention_ceiling", 0.05, 1.0);
  if (m.has("memory_ceiling")) d.memory_ceiling = m.get_double("memory_ceiling", 0.05, 1.0);
  if (m.has("overlap_slowdown")) d.overlap_slowdown = m.get_double("overlap_slowdown", 0.0, 1.0);
  if (m.has("kernel_gap"))
    d.kernel_gap = m.get_quantity("kernel_gap", Quantity::kTime, /*positive=*/false);
}

DevicePreset read_preset(const YAML::Node& node, const std::string& file, std::size_t i) {
  YamlMap m(node, file, "presets[" + std::to_string(i) + "]");
  DevicePreset p;
  p.id = m.get_string("preset");
  p.device.name = p.id;
  p.device.preset = p.id;
  if (!m.has("peak")) m.fail("peak", "missing: a preset gives its peaks by data type");
  read_figures(m, p.device);
  p.device.memory_line = 0;  // a preset's memory is not the user's line
  p.device.flops = peak_of(p.device, default_type(p.device))->flops;
  if (m.has("interconnect")) {
    YamlMap ic(m.child("interconnect"), file, m.field("interconnect"));
    p.interconnect = ic.get_choice("kind", {"nvswitch", "nvlink", "pcie", "xgmi"});
    p.interconnect_bandwidth = ic.get_quantity("bandwidth", Quantity::kBandwidth);
    ic.finish();
  }
  YAML::Node sources = m.child("sources");
  if (!sources.IsSequence() || sources.size() == 0)
    m.fail("sources", "expected a list naming where each figure comes from");
  for (const auto& s : sources) p.sources.push_back(s.as<std::string>());
  m.finish();
  return p;
}

const DevicePreset& find_preset(YamlMap& d) {
  std::string id = d.get_string("preset");
  const auto& presets = bundled_device_presets();
  for (const DevicePreset& p : presets)
    if (p.id == id) return p;
  std::string list;
  for (const DevicePreset& p : presets) list += (list.empty() ? "" : ", ") + p.id;
  d.fail("preset", "'" + id + "' is not a device preset; the presets are: " + list +
                       " (`scaleout devices` lists their figures)");
}

}  // namespace

std::vector<DevicePreset> load_device_presets(const std::string& path) {
  YAML::Node root = load_yaml_file(path);
  YamlMap m(root, path, "");
  YAML::Node list = m.child("presets");
  if (!list.IsSequence()) m.fail("presets", "expected a list of presets");
  std::vector<DevicePreset> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    out.push_back(read_preset(list[i], path, i));
    for (std::size_t j = 0; j + 1 < out.size(); ++j)
      if (out[j].id == out.back().id)
        throw InputError(path, line_of(list[i]), "presets[" + std::to_string(i) + "].preset",
                         "'" + out.back().id + "' is listed twice");
  }
  m.finish();
  return out;
}

const std::vector<DevicePreset>& bundled_device_presets() {
  static const std::vector<DevicePreset> presets = load_device_presets(bundled_path(kPresetsFile));
  return presets;
}

DeviceSpec read_device(YamlMap& d) {
  DeviceSpec device;
  if (d.has("preset")) {
    device = find_preset(d).device;
    device.memory_line = line_of(d.node()["preset"]);  // the preset's memory: refusals point here
  }
  read_figures(d, device);
  if (d.has("flops") || device.peaks.empty()) {
    device.flops = d.get_quantity("flops", Quantity::kFlops);
    device.flops_line = line_of(d.node()["flops"]);
  } else if (d.has("peak")) {
    device.flops = peak_of(device, default_type(device))->flops;
  }
  return device;
}

void choose_peak(Plan& plan) {
  const Training& t = plan.training;
  DeviceSpec& d = plan.cluster.device;
  std::string type = t.precision.empty() ? "bf16" : t.precision;
  if (t.precision.empty() && !d.peaks.empty()) type = default_type(d);
  d.element_bytes = type == "fp8"                      ? 1
                    : type == "fp64"                   ? 8
                    : type == "bf16" || type == "fp16" ? 2
                                                       : 4;
  if (d.flops_line != 0 || d.peaks.empty()) return;  // the topology's own flops stands
  const PeakRate* peak = peak_of(d, type);
  if (!peak)
    throw InputError(
        plan.file, t.precision_line, "training.precision",
        "the device " + d.name + " has no " + type + " peak (it lists " + peak_list(d) + ")");
  d.flops = peak->flops;
}

}  // namespace scaleout::core
