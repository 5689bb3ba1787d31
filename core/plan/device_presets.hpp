// Device presets: the bundled figures of common accelerators (devices/presets.yaml: peaks per
// data type, memory and its bandwidth, multiprocessors, the BLAS's tile, the measured matrix-
// product ceiling, the node's interconnect), each with its public source. A topology names one as
// `device: { preset: h100-sxm5-80gb }` and may override any of its fields.
#pragma once

#include <string>
#include <vector>

#include "core/plan/plan.hpp"
#include "core/plan/yaml_reader.hpp"

namespace scaleout::core {

struct DevicePreset {
  std::string id;  // "a100-sxm4-80gb"
  DeviceSpec device;
  std::string interconnect;           // "nvswitch", "nvlink", "pcie", "xgmi"
  double interconnect_bandwidth = 0;  // bytes/s per device, each direction
  std::vector<std::string> sources;
};

// The data types a peak may be given for, widest first.
const std::vector<std::string>& peak_types();

// Reads a presets file (`presets:` list). Throws InputError naming the file, line and field.
std::vector<DevicePreset> load_device_presets(const std::string& path);

// The bundled presets (devices/presets.yaml under the data directory, core/files/bundled_data.hpp).
const std::vector<DevicePreset>& bundled_device_presets();

// Reads a topology's `device:` mapping: from its preset when it names one, then each field
// written replaces the preset's. Without a preset, `flops` is required.
DeviceSpec read_device(YamlMap& d);

// Sets the device's peak (`flops`) from its peaks for the plan's training.precision, unless the
// topology wrote `flops` itself. Throws InputError naming training.precision for a data type the
// device has no peak for.
void choose_peak(Plan& plan);

}  // namespace scaleout::core
