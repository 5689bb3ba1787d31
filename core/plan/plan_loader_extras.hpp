// Readers for the plan fields of gradient fusion and compute figures (training.fusion,
// training.efficiency, workload.measured_throughput), called by the plan loader.
#pragma once

#include "core/plan/plan.hpp"
#include "core/plan/yaml_reader.hpp"

namespace scaleout::core {

// Reads training.fusion, training.compression and training.efficiency from the training mapping
// `m`. REQUIRES: t.fusion_line already says whether fusion_buffer was given (0: absent).
void read_training_extras(YamlMap& m, Training& t);

// Reads `key` of `m` as elements per second ("2.5G/s"; the "/s" may be left out), positive;
// `fallback` when absent.
double read_elements_rate(YamlMap& m, const char* key, double fallback);

// Reads device.compress (the compressors' rates, elements/s) from the device mapping `device`.
void read_compress_rates(YamlMap& device, DeviceSpec& d);

// Reads workload.tensors (parameter counts in backward order; an entry may be
// `{ parameters: N, repeat: K }`), which must add up to w.parameters (already read).
void read_tensors(YamlMap& m, Workload& w);

// Reads workload.measured_throughput (device name -> samples/s) from the workload mapping `m`.
void read_measured_throughput(YamlMap& m, Workload& w);
// `efficiency_by_size: [[1GFLOP, 0.3], [1TFLOP, 0.6]]` of a transformer workload.
void read_efficiency_by_size(YamlMap& m, Workload& w);

}  // namespace scaleout::core
