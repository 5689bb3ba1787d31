#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "cli/plan_args.hpp"
#include "core/files/atomic_file.hpp"
#include "core/model/efficiency_table.hpp"
#include "core/plan/input_error.hpp"
#include "core/plan/plan_loader.hpp"
#include "exec/calibrate.hpp"
#include "exec/cuda_backend.hpp"

namespace scaleout::cli {

namespace {

exec::CalibrateOptions cpu_options(const std::string& cluster) {
  exec::CalibrateOptions options;
  if (cluster == "emulated") {
    exec::ExecOptions where;
    use_emulated_cluster(where);
    options.node_netns = where.node_netns;
    options.node_ip = where.node_ip;
  }
  return options;
}

void print_link(const char* name, bool measured, const exec::LinkMeasure& m) {
  if (measured && m.both_ways_Bps > 0)
    std::printf("%-11s %10.3f us  %10.2f MB/s each way, %s\n", name, m.latency_s * 1e6,
                m.bandwidth_Bps / 1e6, exec::describe_link_flows(m).c_str());
  else if (measured)
    std::printf("%-11s %10.3f us  %10.2f MB/s\n", name, m.latency_s * 1e6, m.bandwidth_Bps / 1e6);
  else
    std::printf("%-11s not measured here (claimed values kept)\n", name);
}

// --model: the model's products timed on GPU 0 at micro-batches 1..8 and the tensor degrees a
// node allows, written as the model's efficiency_by_size (shares of `cluster`'s claimed peak).
void calibrate_model(const core::Cluster& cluster, const std::string& model,
                     const std::string& output) {
  core::Workload w = core::load_workload(model);
  if (!w.transformer)
    throw core::InputError(model, 0, "transformer",
                           "--model times a transformer's products: this model gives no "
                           "transformer:");
  std::vector<int> tensors = core::tensor_degrees(*w.transformer, cluster.devices_per_node, false);
  auto timer = exec::make_gpu_product_timer();
  core::EfficiencyTable table = core::measure_efficiency_table(
      *w.transformer, {1, 2, 4, 8}, tensors, cluster.device.flops, *timer, [](int done, int total) {
        std::fprintf(stderr, "\rtimed %d of %d products", done, total);
        if (done == total) std::fputc('\n', stderr);
      });
  core::write_file_atomic(
      output, core::model_with_efficiency_table(model, table, "cuBLAS on " + cluster.device.name));
  auto [least, most] =
      std::minmax_element(table.by_size.begin(), table.by_size.end(),
                          [](const auto& a, const auto& b) { return a.second < b.second; });
  std::printf("products    %zu timed, %zu sizes, efficiency %.3f..%.3f of %.4g TFLOP/s\n",
              table.measures.size(), table.by_size.size(), least->second, most->second,
              cluster.device.flops / 1e12);
  std::printf("model       written to %s\n", output.c_str());
}

// The GPUs' rates into `c`, and with `model` its products' table; false (said why) when this
// machine cannot run them.
bool calibrate_gpus(const core::Cluster& claimed, const std::string& model,
                    const std::string& model_output, exec::Calibration& c) {
  if (!exec::cuda_built())
    throw core::InputError("", 0, "--backend cuda", exec::cuda_unavailable(0));
  std::string why = exec::cuda_unavailable(1);
  if (!why.empty()) {
    std::fprintf(stderr, "error: --backend cuda cannot run here: %s\n", why.c_str());
    return false;
  }
  c = exec::calibrate_gpus();
  if (!model.empty()) {
    calibrate_model(claimed, model, model_output);
    // The table is a share of the claimed peak: the topology keeps it, so that the two files
    // written together give the measured rates.
    c.device_flops = claimed.device.flops;
    c.device = "claimed peak kept: the model's efficiency_by_size carries the measured rates";
  }
  return true;
}

void print_calibration(const exec::Calibration& c) {
  print_link("inter-node", c.inter_measured, c.inter_node);
  print_link("intra-node", c.intra_measured, c.intra_node);
  std::printf("compute     %10.3f GFLOP/s per device (%s)\n", c.device_flops / 1e9,
              c.device.c_str());
  std::printf("reduction   %10.3f GB/s\n", c.reduction_Bps / 1e9);
  if (c.inter_measured && c.inter_node.tcp_window_B > 0)
    std::printf("transport   tcp, window %.0f bytes (the kernel's)\n", c.inter_node.tcp_window_B);
  if (c.host_measured)
    std::printf("host        %10.3f us a message, copies %.3f GB/s\n",
                c.host.message_overhead_s * 1e6, c.host.copy_Bps / 1e9);
  if (c.codecs_measured) {
    std::printf("compressors top-k %.3f, quantize %.3f, PowerSGD step %.3f", c.codecs.topk / 1e9,
                c.codecs.quantize / 1e9, c.codecs.lowrank / 1e9);
    if (c.host_measured) std::printf(", delay compensation %.3f", c.host.compensate_rate / 1e9);
    std::printf(" G elements/s (%s)\n", c.codecs_where.c_str());
  }
}

}  // namespace

Action add_calibrate_command(CLI::App& app) {
  auto topology = std::make_shared<std::string>();
  auto output = std::make_shared<std::string>();
  auto cluster = std::make_shared<std::string>("local");
  auto backend = std::make_shared<std::string>("cpu");
  auto model = std::make_shared<std::string>();
  auto model_output = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate",
      "Measure what a topology claims (latency, bandwidth, compute and "
      "reduction rates) and write a\n"
      "topology with the measured values.\n"
      "Example: scaleout calibrate topologies/emulated-4x200mbit.yaml --cluster "
      "emulated -o calibrated.yaml\n"
      "         scaleout calibrate topologies/v100-ib-switch.yaml --backend cuda "
      "-o calibrated.yaml\n"
      "         scaleout calibrate topologies/dgx-a100-ib.yaml --backend cuda -o a100.yaml "
      "--model models/gpt3-175b.yaml --model-output gpt3-measured.yaml");
  cmd->add_option("topology", *topology, "topology YAML file")
      ->required()
      ->transform(bundled_input());
  cmd->add_option("-o,--output", *output, "calibrated topology YAML")
      ->required()
      ->check(non_empty_path());
  cmd->add_option("--cluster", *cluster,
                  "local (loopback) or emulated (across its first two nodes)")
      ->check(CLI::IsMember({"local", "emulated"}));
  cmd->add_option("--backend", *backend,
                  "cpu (Gloo ranks, a CPU core's kernel) or cuda (this machine's GPUs: the cuBLAS "
                  "compute phase, the add kernel, NCCL between GPUs 0 and 1)")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  cmd->add_option("--model", *model,
                  "with --backend cuda: time this transformer model's matrix products with "
                  "cuBLAS and write it with efficiency_by_size to --model-output")
      ->transform(bundled_input());
  cmd->add_option("--model-output", *model_output, "where --model's measured model is written")
      ->check(non_empty_path());
  return [=]() {
    core::Cluster claimed = core::load_cluster(*topology);  // readable, or a clear error
    if (!model->empty() && *backend != "cuda")
      throw core::InputError("", 0, "--model",
                             "times the products with cuBLAS on a GPU: use --backend cuda");
    if (model->empty() != model_output->empty())
      throw core::InputError("", 0, model->empty() ? "--model-output" : "--model",
                             "--model and --model-output go together");
    exec::Calibration c;
    if (*backend == "cuda") {
      if (*cluster != "local")
        throw core::InputError("", 0, "--cluster", "--backend cuda measures this machine's GPUs");
      if (!calibrate_gpus(claimed, *model, *model_output, c)) return 1;
    } else {
      c = exec::calibrate(cpu_options(*cluster));
    }
    core::write_file_atomic(*output, exec::calibrated_topology_yaml(*topology, c));
    print_calibration(c);
    std::printf("written to %s\n", output->c_str());
    return 0;
  };
}

}  // namespace scaleout::cli
