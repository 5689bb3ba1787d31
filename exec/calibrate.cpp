#include "exec/calibrate.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "core/codecs/codec_rates.hpp"
#include "core/plan/units.hpp"
#include "exec/calibrate_host.hpp"
#include "exec/calibrate_link.hpp"
#include "exec/compute_kernel.hpp"
#include "exec/gradient_buffer.hpp"

namespace scaleout::exec {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The additions executed ranks run on received fp32 ranges (gradient_buffer.hpp), timed.
double measure_reduction() {
  std::vector<float> a(8 << 20, 1.0f), b(8 << 20, 2.0f);
  auto t0 = Clock::now();
  for (int rep = 0; rep < 4; ++rep)
    add_elements(ElementType::kFp32, reinterpret_cast<std::byte*>(a.data()),
                 reinterpret_cast<const std::byte*>(b.data()), static_cast<std::int64_t>(a.size()));
  volatile float sink = a[11];
  (void)sink;
  return 4.0 * a.size() * sizeof(float) / seconds_since(t0);
}

}  // namespace

std::string describe_link_flows(const LinkMeasure& m) {
  if (!(m.both_ways_Bps > 0)) return "";
  char buf[200];
  int n = std::snprintf(buf, sizeof buf,
                        "%d flow%s each way at once (one flow each way at once: "
                        "%.4g MB/s",
                        m.flows, m.flows == 1 ? "" : "s", m.both_ways_Bps / 1e6);
  if (m.one_way_Bps > 0 && n > 0)
    std::snprintf(buf + n, sizeof buf - n, "; one flow one way: %.4g MB/s", m.one_way_Bps / 1e6);
  return std::string(buf) + ")";
}

namespace {

std::string link_yaml(const LinkMeasure& m) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "{ bandwidth: %.6gGB/s, latency: %.4gus }", m.bandwidth_Bps / 1e9,
                m.latency_s * 1e6);
  return buf;
}

// Only positive values: a zero (an overhead too small to see) is left out, as the loader wants.
std::string host_yaml(const HostMeasure& h) {
  std::string out = "{";
  char buf[80];
  auto add = [&](const char* key, double v, double scale, const char* unit) {
    if (!(v > 0)) return;
    std::snprintf(buf, sizeof buf, "%s %s: %.6g%s", out.size() > 1 ? "," : "", key, v / scale,
                  unit);
    out += buf;
  };
  add("message_overhead", h.message_overhead_s, 1e-6, "us");
  add("copy_rate", h.copy_Bps, 1e9, "GB/s");
  add("sum_rate", h.sum_Bps, 1e9, "GB/s");
  add("compensate_rate", h.compensate_rate, 1e9, "G/s");
  return out + " }";
}

// The compressors and the server's compensation on this core, on a 16 MiB bucket.
void measure_codecs(Calibration& c) {
  constexpr std::int64_t kCount = 4 << 20;
  using K = core::CompressionKind;
  c.codecs_measured = true;
  c.codecs.topk = core::measure_codec_rate(K::kTopk, kCount, 3).encode;
  c.codecs.quantize = std::min(core::measure_codec_rate(K::kInt8, kCount, 3).encode,
                               core::measure_codec_rate(K::kOnebit, kCount, 3).encode);
  c.codecs.lowrank = core::measure_low_rank_rate(kCount, 4, 2);
  c.host.compensate_rate = core::measure_compensate_rate(kCount, 3).both();
}

}  // namespace

Calibration calibrate(const CalibrateOptions& o) {
  Calibration c;
  c.device_flops = measure_kernel_rate();  // the kernel executed ranks run
  c.reduction_Bps = measure_reduction();
  if (o.node_netns.size() >= 2) {
    c.intra_node = measure_link(o.node_netns[0], o.node_netns[0], "127.0.0.1", "127.0.0.1", 1, o);
    c.inter_node =
        measure_link(o.node_netns[0], o.node_netns[1], o.node_ip[0], o.node_ip[1], o.nic_flows, o);
  } else {
    c.intra_node = measure_link("", "", "127.0.0.1", "127.0.0.1", 1, o);
    c.inter_node = c.intra_node;
  }
  c.host_measured = true;
  c.host.copy_Bps = measure_copy_rate();
  c.host.sum_Bps = c.reduction_Bps;
  c.host.message_overhead_s = std::max(0.0, c.inter_node.latency_s - c.inter_node.tcp_latency_s);
  measure_codecs(c);
  return c;
}

namespace {

// The measured values written over the topology's claimed ones.
void write_measured(YAML::Node& topo, const Calibration& c) {
  char flops[64];
  std::snprintf(flops, sizeof flops, "%.6gGFLOPS", c.device_flops / 1e9);
  topo["device"]["flops"] = flops;
  if (!c.device_name.empty()) topo["device"]["name"] = c.device_name;
  if (c.codecs_measured) {
    char compress[128];
    std::snprintf(compress, sizeof compress,
                  "{ topk: %.6gG/s, quantize: %.6gG/s, lowrank: %.6gG/s }", c.codecs.topk / 1e9,
                  c.codecs.quantize / 1e9, c.codecs.lowrank / 1e9);
    topo["device"]["compress"] = YAML::Load(compress);
  }
  if (c.inter_measured) {
    LinkMeasure nic = c.inter_node;
    if (c.host_measured && c.host.message_overhead_s > 0) nic.latency_s = nic.tcp_latency_s;
    topo["nic"] = YAML::Load(link_yaml(nic));
    // Rates measured over TCP already include its overheads: no corrections on top.
    topo["network_model"] = "cm02";
    // Gloo's transport between the hosts: TCP with the kernel's window (no eager limit: Gloo
    // has no switch by message size).
    if (nic.tcp_window_B > 0)
      topo["transport"] = YAML::Load(
          "{ kind: tcp, window: " + std::to_string(std::llround(nic.tcp_window_B)) + "B }");
  }
  if (c.intra_measured && (topo["intra_node"] || topo["devices_per_node"])) {
    YAML::Node measured = YAML::Load(link_yaml(c.intra_node));
    if (topo["intra_node"].IsMap() && topo["intra_node"]["kind"]) {  // keep the kind's own fields
      topo["intra_node"]["bandwidth"] = measured["bandwidth"];
      topo["intra_node"]["latency"] = measured["latency"];
    } else {
      topo["intra_node"] = measured;
    }
  }
  if (c.host_measured) topo["host"] = YAML::Load(host_yaml(c.host));
  if (topo["name"]) {
    // The emulated cluster built from the measured topology runs plans of this one too.
    if (!topo["calibrated_from"]) topo["calibrated_from"] = topo["name"].as<std::string>();
    topo["name"] = topo["name"].as<std::string>() + "-calibrated";
  }
}

// The comment above the calibrated topology: what was measured, and how.
std::string measured_comment(const std::string& topology_path, const Calibration& c) {
  auto link = [](const char* name, bool measured, const LinkMeasure& m) {
    char line[320];
    std::string flows = describe_link_flows(m);  // "" for a GPU pair's one-way send
    if (measured)
      std::snprintf(line, sizeof line, "# %s: %.3f us one way, %.4g MB/s%s%s\n", name,
                    m.latency_s * 1e6, m.bandwidth_Bps / 1e6, flows.empty() ? "" : " each way, ",
                    flows.c_str());
    else
      std::snprintf(line, sizeof line, "# %s: not measured here, the claimed values kept\n", name);
    return std::string(line);
  };
  char tail[256];
  std::snprintf(tail, sizeof tail,
                "# compute: %.4g GFLOP/s per device (%s); reduction: %.4g GB/s\n",
                c.device_flops / 1e9, c.device.c_str(), c.reduction_Bps / 1e9);
  std::ostringstream out;
  out << "# Calibrated from " << topology_path
      << " on this machine: measured values replace the claimed ones.\n"
      << link("inter-node", c.inter_measured, c.inter_node)
      << link("intra-node", c.intra_measured, c.intra_node) << tail;
  if (c.inter_measured && c.inter_node.tcp_window_B > 0) {
    char window[160];
    std::snprintf(window, sizeof window,
                  "# transport: TCP window %.0f bytes (the kernel's tcp_wmem and tcp_rmem "
                  "ceilings in node 0's namespace)\n",
                  c.inter_node.tcp_window_B);
    out << window;
  }
  if (c.host_measured) {
    char host[256];
    std::snprintf(host, sizeof host,
                  "# host: message overhead %.3f us (Gloo's one way %.3f us less bare TCP's %.3f "
                  "us), memcpy %.4g GB/s\n",
                  c.host.message_overhead_s * 1e6, c.inter_node.latency_s * 1e6,
                  c.inter_node.tcp_latency_s * 1e6, c.host.copy_Bps / 1e9);
    out << host;
  }
  if (c.codecs_measured) {
    char codecs[256];
    std::snprintf(codecs, sizeof codecs,
                  "# compressors on %s: top-k %.4g G elements/s, quantize %.4g G/s, "
                  "PowerSGD step (rank 4) %.4g G/s",
                  c.codecs_where.c_str(), c.codecs.topk / 1e9, c.codecs.quantize / 1e9,
                  c.codecs.lowrank / 1e9);
    out << codecs;
    if (c.host_measured) {  // a GPU's calibration leaves the hosts' costs as claimed
      std::snprintf(codecs, sizeof codecs, "; delay compensation %.4g G/s",
                    c.host.compensate_rate / 1e9);
      out << codecs;
    }
    out << "\n";
  }
  return out.str();
}

}  // namespace

std::string calibrated_topology_yaml(const std::string& topology_path, const Calibration& c) {
  YAML::Node topo = YAML::LoadFile(topology_path);
  write_measured(topo, c);
  std::ostringstream out;
  out << measured_comment(topology_path, c);
  YAML::Emitter emitter;
  emitter << topo;
  out << emitter.c_str() << "\n";
  return out.str();
}

}  // namespace scaleout::exec
