// The plan: plain data describing a cluster, a workload, a strategy and a training regime.
// It knows nothing of how it will run (simulated, analytic or executed). All values are SI.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace scaleout::core {

struct LinkSpec {
  double bandwidth = 0;  // bytes/s
  double latency = 0;    // seconds
};

enum class NetworkKind { kSwitch, kTwoTier, kFatTree, kTorus2d, kExplicit };

struct NetworkSpec {
  NetworkKind kind = NetworkKind::kSwitch;
  int hosts_per_rack = 0;         // two_tier
  LinkSpec uplink;                // two_tier: each rack switch to the core switch
  int fat_tree_k = 0;             // fat_tree: k-ary fat tree (k even)
  std::array<int, 2> dims{0, 0};  // torus2d: nodes arranged dims[0] x dims[1], wrap-around links
  std::optional<LinkSpec>
      fabric;  // fat_tree / torus2d: switch-switch or node-node links (default nic)
};

struct ExplicitHost {
  std::string name;
  int devices = 1;
};

struct ExplicitLink {
  std::string a, b;
  LinkSpec link;
  int line = 0;
};

// The fabric inside a node. nvlink and nvswitch: each device has its own link (the cluster's
// intra_node) into a non-blocking node switch. pcie_tree: devices sit in groups of
// gpus_per_switch behind PCIe switches, each with one uplink to its CPU socket's root complex;
// with a socket_link, the switches are split over two sockets joined by it (QPI/UPI). The NICs
// sit at socket 0's root complex.
enum class IntraNodeKind { kNvlink, kPcieTree, kNvswitch };

struct IntraNodeFabric {
  IntraNodeKind kind = IntraNodeKind::kNvlink;
  int gpus_per_switch = 0;              // pcie_tree
  LinkSpec switch_uplink;               // pcie_tree: each PCIe switch to its socket
  std::optional<LinkSpec> socket_link;  // pcie_tree: between the two sockets (none: one socket)
  int line = 0;
};

// A device's peak FLOP/s for one data type of its matrix units ("bf16", "fp8", ...).
struct PeakRate {
  std::string type;
  double flops = 0;
};

struct DeviceSpec {
  std::string name = "device";
  std::string preset;  // the bundled preset it started from (devices/presets.yaml); empty: none
  double flops = 0;    // peak FLOP/s of the data type the plan computes in
  int flops_line = 0;  // where `flops` was written (0: from the preset's peaks)
  std::vector<PeakRate> peaks;  // by data type, from a preset or `peaks:`; empty: `flops` only
  // The figures of the compute model (core/model/device_compute.hpp); 0: not given, and compute
  // runs at the workload's efficiency instead.
  double memory_bandwidth = 0;           // bytes/s of device memory
  int multiprocessors = 0;               // SMs or compute units
  int tile_rows = 128, tile_cols = 128;  // output tile of the BLAS's large matrix kernels
  double matmul_ceiling = 0;  // the best measured matrix-product rate over the peak; 0: none
  // The best measured rate of a fused attention kernel (FlashAttention) over the peak; 0: none
  // (its products at matmul_ceiling).
  double attention_ceiling = 0;
  // The best measured memory bandwidth over memory_bandwidth; 0: none (the datasheet's rate).
  double memory_ceiling = 0;
  // How much longer compute takes while the device also runs overlapped collectives (their
  // kernels take multiprocessors and memory bandwidth): 0.189 runs it 1.189x as long during the
  // overlap (core/model/overlap_slowdown.hpp). 0: none.
  double overlap_slowdown = 0;
  double kernel_gap = 2e-6;  // seconds between two kernels on a stream (launch, tail)
  int element_bytes = 2;     // of the products' inputs in the plan's precision
  double memory = 0;         // bytes of device memory; 0: not given (nothing is refused for memory)
  int memory_line = 0;
  // Elements per second at which the device runs gradient compressors (`compress:`): top-k
  // selection, and the element-wise passes (quantize, dequantize, scatter-add, random-k).
  double compress_topk = 2.5e9;
  double compress_quantize = 40e9;
  // Elements per second of a whole PowerSGD step at rank 4 (one power iteration: the products
  // with the thin P and Q, the orthogonalization, the error feedback); other ranks scale it.
  double compress_lowrank = 30e9;
  int compress_line = 0;
};

// Heterogeneity: compute speed multipliers by node name ("node3") or device name ("node1-dev2"),
// and bandwidth overrides by link name ("node5-nic", "rack0-uplink").
struct Heterogeneity {
  std::vector<std::pair<std::string, double>> speed_factors;
  std::vector<std::pair<std::string, double>> link_bandwidth;  // bytes/s
  int line = 0;
};

// The software costs of a host's network stack (gRPC, serialization, copies) and of a parameter
// server's summation. Zero: free (the default, as before these existed).
struct HostCosts {
  double message_overhead = 0;  // seconds of host time per message crossing a NIC
  double copy_rate = 0;         // bytes/s of host copies per message byte; 0: free
  double sum_rate = 0;          // bytes/s at which a server adds a received gradient; 0: free
  // Elements/s at which a server compensates (DC-ASGD): a push's compensated update over the
  // gradient, the parameters and the worker's pulled copy, plus the copy its next pull keeps.
  // Charged whenever delay compensation is on; the default is one core of a 2-core x86 VM
  // (bench/delay_compensation: 1.25G/s).
  double compensate_rate = 1.25e9;
  // Elements/s of one element-wise codec pass (decode and add, or encode) on a CPU server host
  // (`server_hosts: cpu`): what a compressed PS's server combination is charged at there. The
  // default is one core of a 2-core x86 VM decoding int8 and 1-bit codes
  // (bench_compression_codecs: 0.25G/s).
  double codec_rate = 0.25e9;
  int line = 0;
  bool any() const { return message_overhead > 0 || copy_rate > 0 || sum_rate > 0; }
};

// `transport:` the wire protocol between hosts, where it costs more than latency and line rate.
// Without the block: SimGrid's default TCP window (4 MiB, Linux's default tcp_wmem maximum)
// bounds every flow in both engines, and no message waits for a rendezvous.
enum class TransportKind { kTcp, kRdma };
struct Transport {
  TransportKind kind = TransportKind::kTcp;
  // TCP: one flow moves at most a window per round trip, window / (2 x the route's latency)
  // (bytes; the latency without the network model's factor, as SimGrid bounds it). RDMA: none (0).
  double window = 4194304;
  // MPI's eager/rendezvous switch: a message between nodes of more bytes waits one round trip
  // (request to send, clear to send: 2 x the route's latency) before its data moves. < 0: none.
  double eager_limit = -1;
  int line = 0;
  bool rendezvous(double bytes) const { return eager_limit >= 0 && bytes > eager_limit; }
};

// `storage:` the shared file system checkpoints are written to and read back from (0: not given).
struct Storage {
  double write_bandwidth = 0;      // bytes/s, all writers together
  double read_bandwidth = 0;       // bytes/s, all readers together
  double host_copy_bandwidth = 0;  // bytes/s, each device to its host's memory (asynchronous)
  int line = 0;
};

struct Cluster {
  std::string file;  // where it was loaded from ("" when inline in a plan)
  std::string name;
  // `calibrated_from:` the name of the topology that `calibrate` measured to write this one ("":
  // not calibrated). Its emulated cluster runs a plan of this topology although the rates differ.
  std::string calibrated_from;
  std::optional<int> nodes;  // nullopt: "auto", as many as the plan needs
  int devices_per_node = 1;
  DeviceSpec device;
  LinkSpec intra_node;  // each device's link to its node's internal switch
  LinkSpec nic;         // each node's link to the network
  NetworkSpec network;
  std::string network_model = "lv08";  // lv08 | cm02 | ib
  // Replaces the model's latency factor (LV08: 13.01, CM02: 1); nullopt: the model's own.
  std::optional<double> latency_factor;
  int latency_factor_line = 0;
  // Explicit form (network.kind == kExplicit): hosts, switches and links named by the user.
  std::vector<ExplicitHost> hosts;
  std::vector<std::string> switches;
  std::vector<ExplicitLink> links;
  Heterogeneity heterogeneity;
  std::optional<double> price_per_device_hour;  // for planning costs; any currency
  HostCosts host;       // `host:` software costs (see core/model/host_costs.hpp)
  Transport transport;  // `transport:` the wire protocol (see core/model/transport.hpp)
  Storage storage;      // `storage:` where checkpoints go
  // Rails: each node's NICs (all alike: `nic`), striped over by every inter-node transfer. In the
  // explicit form each host then lists this many links to switches, its rails in that order.
  int nics_per_node = 1;
  int nics_line = 0;
  IntraNodeFabric intra_fabric;  // the kind of fabric that intra_node's links belong to
};

struct Layer {
  std::string name;
  double parameters = 0;
  double backward_share = 0;  // share of the backward pass's time
};

// A transformer's dimensions (`transformer:` in a workload): parameters and FLOPs are derived
// from them (core/model/transformer.hpp).
// The MLP of a transformer layer: gelu (GPT, Megatron) has two matrices, hidden -> ffn_hidden ->
// hidden, with biases; swiglu (Llama, Mistral, Qwen) has three without biases: a gate and an up
// projection whose SiLU(gate) x up product feeds the down projection.
enum class MlpKind { kGelu, kSwiglu };
// Positions: learned (GPT) is an embedding of sequence x hidden; rotary (RoPE) and ALiBi (BLOOM's
// linear biases on the attention scores) have no parameters.
enum class PositionKind { kLearned, kRotary, kAlibi };
// How the attention runs: standard (the scores written to memory, softmax and dropout over them,
// as Megatron-LM's fused kernels) or flash (FlashAttention: one kernel, the scores never stored).
enum class AttentionKind { kStandard, kFlash };

// A mixture-of-experts MLP (`transformer.moe:`), as Megatron-Core and GShard describe it: a
// router (hidden x experts, no bias) sends each token to its `top_k` experts, each an MLP of the
// workload's kind with `expert_ffn_hidden` inner width; `shared_experts` always run, with
// `shared_ffn_hidden` inner width together (Megatron-Core's --moe-shared-expert-intermediate-size).
// Every `every`-th layer from the first is a MoE layer (Megatron-Core's --moe-layer-freq); the
// others keep the dense MLP. `capacity_factor` > 0 pads each expert's input to that many times
// its mean load (GShard, DeepSpeed-MoE); 0 is dropless (each expert computes its own tokens).
struct MoeShape {
  int experts = 0;
  int top_k = 1;
  int expert_ffn_hidden = 0;
  int shared_experts = 0;
  int shared_ffn_hidden = 0;
  int every = 1;
  // The leading layers that keep the dense MLP before the pattern starts (DeepSeek's
  // first_k_dense_replace): the MoE layers are those from `first_dense` on whose index `every`
  // divides, as Hugging Face's DeepSeek models place them.
  int first_dense = 0;
  double capacity_factor = 0;
  // The busiest expert-parallel rank's tokens over the mean (1: balanced). With expert
  // parallelism it paces the all-to-all exchanges and the experts' products of every rank.
  double imbalance = 1.0;
  // Group-limited routing (DeepSeek-V3's node-limited routing; Hugging Face's n_group and
  // topk_group, Megatron-Core's --moe-router-num-groups and --moe-router-group-topk): the experts
  // in `groups` runs of consecutive experts, each token's top_k chosen among the experts of its
  // best `group_top_k` groups (0: no groups, every expert open to every token).
  int groups = 0;
  int group_top_k = 0;
  int line = 0;
  int every_line = 0;
  int first_dense_line = 0;
};

// DeepSeek's multi-head latent attention (DeepSeek-AI 2024, DeepSeek-V2 section 2.1;
// `transformer.latent_attention:`, Hugging Face's field names). The queries pass through a latent
// of q_lora_rank (0: one matrix, as DeepSeek-V2-Lite), the keys and values through one of
// kv_lora_rank: hidden -> latent (down projection), a norm, latent -> every head (up
// projection). Each head's query and key are a qk_nope_head_dim part from the latent and a
// qk_rope_head_dim part carrying the rotary positions, one shared by all heads and projected
// straight from the hidden state beside the key-value latent; its value is v_head_dim wide. Under
// tensor parallelism the up projections split by heads and the down projections are duplicated on
// every rank (Megatron-Core's MLA).
struct LatentAttention {
  int q_rank = 0;
  int kv_rank = 0;
  int rope_dim = 0;
  int nope_dim = 0;
  int value_dim = 0;
  int line = 0;
};

struct TransformerShape {
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int sequence = 0;  // tokens per sequence (a sample is one sequence)
  int vocabulary = 0;
  int ffn_hidden = 0;  // the MLP's inner width (default 4 x hidden)
  int kv_heads = 0;    // heads of keys and values (default heads; fewer: grouped-query attention)
  int head_dim = 0;    // one head's width (0: hidden / heads; Gemma's are wider)
  int line = 0;
  MlpKind mlp = MlpKind::kGelu;
  PositionKind positions = PositionKind::kLearned;
  bool tied_embeddings = true;  // the output layer shares the word embedding (else its own V x h)
  AttentionKind attention = AttentionKind::kStandard;
  // Each token attends to those before it only (a decoder's mask): a fused kernel skips the score
  // tiles above the diagonal. false: every token attends to every other (an encoder's).
  bool causal = true;
  std::optional<MoeShape> moe;            // none: every layer's MLP is dense
  std::optional<LatentAttention> latent;  // none: heads of head_dim with kv_heads' keys
};

struct Workload {
  std::string file;
  std::string name;
  double parameters = 0;        // count
  double flops_per_sample = 0;  // forward + backward
  double efficiency = 0.4;      // achieved share of device peak
  int efficiency_line = 0;      // where it was written (0: the default)
  // Transformers: the achieved share by matrix-product size, (FLOPs of one product on one device,
  // efficiency) ascending; empty: every product at `efficiency` (core/model/shape_efficiency.hpp).
  std::vector<std::pair<double, double>> efficiency_by_size;
  int efficiency_by_size_line = 0;
  std::vector<Layer> layers;  // backward order; may be empty
  // The parameter tensors' element counts in backward order (`tensors:`), adding up to
  // `parameters`; DDP's buckets hold whole tensors when they are listed (core/programs/fusion.hpp).
  std::vector<std::int64_t> tensors;
  int tensors_line = 0;
  // Measured samples/s of one device, by device name (the topology's device.name): where the
  // plan's device has an entry, compute time per sample is 1/throughput
  // (core/model/compute_rate.hpp).
  std::vector<std::pair<std::string, double>> measured_throughput;
  int measured_line = 0;
  std::optional<TransformerShape> transformer;
  int parameters_line = 0;  // where parameters / flops_per_sample were given (0: derived)
  int flops_line = 0;
};

enum class StrategyKind {
  kPs,
  kRing,
  kTorus2d,
  kHierarchicalRing,
  kHalvingDoubling,
  kTree,
  kHierarchicalAllreduce,       // reduce to node leaders, ring among them, broadcast
  kHierarchicalHalvingDoubling  // reduce to node leaders, halving-doubling among them, broadcast
};

const char* strategy_name(StrategyKind kind);
// Returns nullopt for an unknown name.
std::optional<StrategyKind> parse_strategy_kind(const std::string& name);
const std::vector<std::string>& strategy_names();

enum class PsPlacement { kDedicated, kColocated };
enum class PsMode { kSync, kAsync };
// Local aggregation before a parameter server: none (every worker pushes its whole gradient) or
// node (the workers of a node reduce inside it, push and pull once per node, then broadcast).
enum class PsAggregation { kNone, kNode };
// What a dedicated server node is: a machine like the workers' (gpu) or a CPU host without
// accelerators (cpu, as BytePS runs its servers): one server per node, with the node's own NIC.
enum class PsServerHosts { kGpu, kCpu };

// `delay_compensation` of an asynchronous parameter server (DC-ASGD, Zheng et al. 2017): a server
// keeps, per worker, the parameters that worker last pulled, and applies
// w -= learning_rate * (g + lambda * g * g * (w - w_pulled)) element-wise.
struct DelayCompensation {
  bool on = false;
  double lambda = 0.04;
  double learning_rate = 0.01;  // the server's SGD step (executed runs apply it to real floats)
  int line = 0;
};

struct Strategy {
  StrategyKind kind = StrategyKind::kRing;
  double chunk = 4.0 * 1024 * 1024;        // bytes: ring-family and tree pipeline chunk
  std::optional<std::array<int, 2>> grid;  // torus2d: X (row length) x Y (rows)
  int ps_servers = 1;
  PsPlacement ps_placement = PsPlacement::kDedicated;
  PsMode ps_mode = PsMode::kSync;
  int replicas_to_aggregate = 0;  // 0: all workers
  int softsync = 0;               // 0: off
  int staleness_bound = -1;       // -1: unbounded
  int line = 0;                   // where the strategy was given (for errors found later)
  int grid_line = 0;
  int replicas_line = 0;
  int softsync_line = 0;
  int servers_line = 0;
  int chunk_line = 0;
  PsAggregation ps_local_aggregation = PsAggregation::kNone;
  int local_aggregation_line = 0;
  PsServerHosts ps_server_hosts = PsServerHosts::kGpu;
  int server_hosts_line = 0;
  DelayCompensation delay_compensation;
};

// `training.compression`: what a worker does to its gradient before it crosses the network
// (core/codecs/compression.hpp says what each kind exchanges).
enum class CompressionKind { kNone, kFp16, kTopk, kRandomk, kInt8, kOnebit, kPowersgd, kQuantize };

struct Compression {
  CompressionKind kind = CompressionKind::kNone;
  double density = 0.01;             // topk, randomk: share of the elements kept, in (0, 1]
  bool shared_indices = false;       // randomk: every worker draws the same indices and the
                                     // selected values are all-reduced (GRACE's random-k)
  bool error_feedback = true;        // keep what compression dropped and add it to the next step
  int rank = 4;                      // powersgd
  int bits = 8;                      // quantize: 1, 2, 4 or 8 bits an element
  bool allgather = false;            // int8, onebit, quantize: all-gather every worker's encoded
                                     // bucket (GRACE) instead of 1-bit Adam's all-reduce
  bool majority_vote = false;        // all-gathered signs: each element the sign of the workers'
                                     // votes (signSGD with majority vote)
  double chunk = 1.0 * 1024 * 1024;  // int8, onebit: bytes of fp32 gradient per scale
  int line = 0;
  int density_line = 0, rank_line = 0, chunk_line = 0, shared_indices_line = 0, bits_line = 0,
      exchange_line = 0, majority_vote_line = 0;
  // topk and randomk: (index, value) pairs or, shared, values (core/codecs/compression.hpp)
  bool sparse() const {
    return kind == CompressionKind::kTopk || kind == CompressionKind::kRandomk;
  }
  // int8, onebit and quantize: scales per chunk and packed codes (core/codecs/compression.hpp)
  bool quantized() const {
    return kind == CompressionKind::kInt8 || kind == CompressionKind::kOnebit ||
           kind == CompressionKind::kQuantize;
  }
  // A quantized kind whose encoded buckets are all-gathered (`exchange: allgather`).
  bool gathered() const { return quantized() && allgather; }
  // Bits a quantized kind codes an element in: int8 8, onebit 1, quantize `bits`.
  int quantize_bits() const {
    return kind == CompressionKind::kOnebit ? 1 : kind == CompressionKind::kQuantize ? bits : 8;
  }
  // randomk with shared indices: the ring all-reduces the values (core/codecs/compression.hpp)
  bool shared_draw() const { return kind == CompressionKind::kRandomk && shared_indices; }
  bool on() const { return kind != CompressionKind::kNone && kind != CompressionKind::kFp16; }
};

struct Training {
  int workers = 1;
  int batch_per_worker = 32;
  int steps = 1;
  int gradient_bytes_per_element = 4;  // fp32: 4, fp16/bf16: 2
  std::string gradient_precision = "fp32";
  // The data type of the matrix products (`precision:` bf16, fp16, fp8, tf32, fp32): it picks the
  // device's peak from its preset's peaks. Empty: bf16 (fp16 where the device has no bf16).
  std::string precision;
  int precision_line = 0;
  bool overlap = false;
  double fusion_buffer = 64.0 * 1024 * 1024;  // bytes
  int workers_line = 0;
  int batch_line = 0;
  int steps_line = 0;
  int fusion_line = 0;
  // How gradients are fused into buckets (core/programs/fusion.hpp); legacy when absent.
  struct Fusion {
    enum class Kind { kLegacy, kHorovod, kDdp };
    Kind kind = Kind::kLegacy;
    double cycle_time = 1e-3;                 // horovod: seconds between fusion cycles
    double threshold = 128.0 * 1024 * 1024;   // horovod: bytes fused at most into one bucket
    double bucket_cap = 25.0 * 1024 * 1024;   // ddp: bytes per bucket
    double first_bucket = 1.0 * 1024 * 1024;  // ddp: bytes of the first bucket
    int line = 0;
  } fusion;
  std::optional<double> efficiency;  // overrides the workload's efficiency (share of peak)
  int efficiency_line = 0;
  // Sequences per iteration over the whole job (model-parallel plans give this instead of
  // batch_per_worker); 0: not given.
  int global_batch = 0;
  int global_batch_line = 0;
  Compression compression;
};

// kZeroBubble: ZB-H1 (Qi et al. 2023), 1F1B with each backward split into the inputs' gradient
// and the weights' gradient, the latter deferred into what would be the bubble. kDualPipeV:
// DeepSeek's DualPipeV (the V-shaped, "cut-in-half" form of DualPipe): two chunks a stage, the
// first going down the stages and the second back up, forwards and backwards of different
// micro-batches paired, part of the backwards split as zero bubble's. kDualPipe: DualPipe itself
// (DeepSeek-V3): micro-batches fed from both ends, each stage holding the layers of its own
// position and of its mirror's (the parameters twice), in DualPipeV's steps on each half.
enum class PipelineScheduleKind {
  kGpipe,
  kOneFOneB,
  kInterleaved,
  kZeroBubble,
  kDualPipeV,
  kDualPipe
};
// The framework a model-parallel plan is for (core/plan/framework.hpp says which splits each runs).
enum class Framework { kMegatron, kDeepSpeed, kFsdp, kAny };
enum class Recompute { kNone, kSelective, kFull };
// Megatron-Core's --recompute-modules under selective recomputation: the parts of each layer whose
// outputs are dropped after forward and computed again in backward (its default: the core
// attention alone).
struct RecomputeModules {
  bool core_attn = true;        // the attention's scores and context
  bool layernorm = false;       // the two norms' outputs (the QKV and first MLP inputs)
  bool mla_up_proj = false;     // latent attention's up projections (and RoPE): Q, K and V
  bool moe_act = false;         // the routed experts' activation (their down projections' input)
  bool mlp = false;             // a dense layer's MLP, all but its input
  bool shared_experts = false;  // the shared experts' inner activations
};
// The modules' names, as Megatron-Core and the plan write them, in this order.
inline std::vector<std::string> recompute_module_names(const RecomputeModules& r) {
  std::vector<std::string> out;
  for (auto [on, name] : {std::pair{r.core_attn, "core_attn"},
                          {r.layernorm, "layernorm"},
                          {r.mla_up_proj, "mla_up_proj"},
                          {r.moe_act, "moe_act"},
                          {r.mlp, "mlp"},
                          {r.shared_experts, "shared_experts"}})
    if (on) out.push_back(name);
  return out;
}
// How a context-parallel group exchanges keys and values (Megatron-Core's --cp-comm-type): p2p
// passes each rank's block around the ring beside the attention's compute (ring attention);
// all_gather gathers them all first (Llama 3's way).
enum class ContextExchange { kRing, kAllGather };
// How an expert-parallel group's all-to-alls run (core/programs/strategies/all_to_all.hpp):
// pairwise, every member to every other in turn; hierarchical, inside each node first, then one
// larger message to the member of the same place on each other node (Tutel's two-level exchange);
// deduplicated, the hierarchical exchange with each token sent to a node once (DeepEP's: its copies
// for that node's experts made there, the experts' outputs summed in the node before they go back;
// core/model/token_exchange.hpp).
enum class ExpertAllToAll { kPairwise, kHierarchical, kDeduplicated };
inline const char* expert_alltoall_name(ExpertAllToAll a) {
  return a == ExpertAllToAll::kHierarchical   ? "hierarchical"
         : a == ExpertAllToAll::kDeduplicated ? "deduplicated"
                                              : "pairwise";
}

// `parallelism:` splits a transformer over tensor x context x pipeline x data devices. Ranks are
// numbered tensor-fastest, then context, data, pipeline (Megatron's order).
struct Parallelism {
  int tensor = 1;
  int pipeline = 1;
  int microbatch = 1;  // sequences per micro-batch
  PipelineScheduleKind schedule = PipelineScheduleKind::kOneFOneB;
  int virtual_stages = 1;  // model chunks per stage (interleaved only)
  bool sequence_parallel = false;
  Recompute recompute = Recompute::kNone;
  RecomputeModules recompute_modules;  // with recompute: selective
  int zero = 0;  // 0..3: optimizer states / + gradients / + parameters sharded over the data group
  // Expert parallelism (Megatron-Core's --expert-model-parallel-size): the data group's ranks in
  // runs of `expert`, each holding experts / expert of every MoE layer's experts, tokens sent to
  // them by all-to-all exchanges; the experts' gradients are exchanged over the data group / expert
  // ranks that hold the same experts.
  int expert = 1;
  ExpertAllToAll expert_alltoall = ExpertAllToAll::kPairwise;
  // The tokens sent to the experts (the dispatch, and the combine's gradient) in FP8 with a scale
  // per 128 elements (DeepSeek-V3 section 3.3.3); what comes back stays at 16 bits.
  bool expert_dispatch_fp8 = false;
  // Context parallelism (Megatron-Core's --context-parallel-size): each sequence split into
  // `context` parts, one a rank, the attention's keys and values exchanged over the group
  // (`context_exchange`); the gradients are exchanged over context x data ranks.
  int context = 1;
  ContextExchange context_exchange = ContextExchange::kRing;
  // Uneven stages (Megatron-Core's --decoder-first-pipeline-num-layers and
  // --decoder-last-pipeline-num-layers): the first and the last stage hold these many layers (0:
  // their even share) and the stages between share the rest evenly.
  int first_stage_layers = 0, last_stage_layers = 0;
  // Megatron-Core's --account-for-embedding-in-pipeline-split and
  // --account-for-loss-in-pipeline-split: the embedding (the loss and output layer) counts as one
  // layer of the first chunk of the first stage (the last chunk of the last stage) when the layers
  // are split evenly over every stage's chunks (Llama 3 405B: 126 + 2 over 16 stages x 8 chunks).
  bool embedding_in_split = false, loss_in_split = false;
  // Megatron-Core's --overlap-grad-reduce: each chunk's gradient is exchanged in buckets of at
  // least `bucket_size` parameters (--ddp-bucket-size; 0: Megatron-Core's max(40M, 1M x data)),
  // each as soon as the chunk's last micro-batch's backward has made it, beside later layers'
  // compute (core/programs/gradient_buckets.hpp).
  bool overlap_grad_reduce = false;
  double bucket_size = 0;
  // Megatron-Core's --overlap-param-gather (with the distributed optimizer, zero: 1): the updated
  // parameters are all-gathered in the same buckets, in forward order, during each chunk's first
  // forward of the next iteration instead of after the optimizer's step.
  bool overlap_param_gather = false;
  // Megatron-Core's --tp-comm-overlap: each layer's tensor-parallel all-gathers and
  // reduce-scatters run chunk by chunk beside the matrix products that take or make them; all but
  // one chunk in `tensor` hides behind the layer's compute.
  bool tp_comm_overlap = false;
  // Absent: the written split is taken as given, and the split search proposes Megatron-LM's.
  std::optional<Framework> framework;
  int line = 0;
  int tensor_line = 0, pipeline_line = 0, microbatch_line = 0, schedule_line = 0, virtual_line = 0,
      zero_line = 0, framework_line = 0, expert_line = 0, expert_alltoall_line = 0,
      expert_dispatch_precision_line = 0, recompute_modules_line = 0, stage_layers_line = 0,
      split_accounting_line = 0, overlap_line = 0, tp_overlap_line = 0, context_line = 0;
};

enum class SlowdownKind { kNone, kExponential, kLognormal, kBernoulli };

// Stragglers: a fixed set of slow workers, and random per-step slowdowns. A worker's compute in a
// step takes (fixed factor) x (random factor) times as long. Random factors are drawn from the
// seed, the worker and the step only, so a run is reproducible whatever the engine's order.
struct Stragglers {
  std::vector<int> slow_workers;
  double slow_factor = 1;
  SlowdownKind random = SlowdownKind::kNone;
  double mean = 0;         // exponential: factor = 1 + Exp(mean)
  double sigma = 0;        // lognormal: factor = exp(N(0, sigma))
  double probability = 0;  // bernoulli: factor = `factor` with this probability, else 1
  double factor = 1;
  std::uint64_t seed = 1;
  int slow_workers_line = 0;
};

// A node fails at a step (before it starts) or at a time (seconds into the run).
struct Failure {
  int node = 0;
  int at_step = -1;
  double at_time = -1;
  int line = 0;
};

struct Resilience {
  std::vector<Failure> failures;
  int checkpoint_every = 0;       // steps; 0: no checkpoints (a failure loses everything so far)
  double checkpoint_every_s = 0;  // or seconds of training between checkpoints (0: by steps)
  double checkpoint_cost = 0;     // seconds each checkpoint stalls training
  bool checkpoint_cost_given = false;    // else the storage's rates and the split's bytes set it
  bool checkpoint_asynchronous = false;  // copy to host memory (stalls), write beside training
  double restart_time = 0;               // seconds from a failure until training resumes
  int checkpoint_line = 0;
};

// `reliability:` failure rates of a long run (see core/reliability/goodput.hpp). Each component
// fails at random, independently, with the mean time between failures given (0: it never fails);
// the job fails when any of its components does.
struct Reliability {
  double gpu_mtbf = 0;   // seconds, per device
  double node_mtbf = 0;  // seconds, per node (host, power, software)
  double link_mtbf = 0;  // seconds, per network link of a node (each NIC)
  std::uint64_t seed = 1;
  int samples = 100;        // sampled runs behind the percentiles (0: the expectation only)
  double train_steps = 0;   // the run's length in steps, or
  double train_tokens = 0;  // in tokens (transformer plans)
  // A failed node comes back (repaired or replaced) `repair` seconds later on average (the time is
  // exponential); until then the job
  // runs on one of `hot_spares` idle nodes, or waits for a node when none is left. 0: a failure
  // costs the checkpoint's `restart` alone (a node is always at hand).
  double repair = 0;
  int hot_spares = 0;
  // Nodes that slow down without failing (a throttled GPU, a degraded link, a noisy neighbour):
  // each node turns slow at 1 / `slow_mtbf`, keeps `slow_speed` of its pace for `slow_for` seconds
  // on average (exponential) until it is found and drained, and a synchronous job runs at its
  // slowest node's pace. 0: no slow nodes.
  double slow_mtbf = 0;
  double slow_speed = 1;
  double slow_for = 0;
  int line = 0;
};

struct Plan {
  std::string file;
  Cluster cluster;
  Workload workload;
  Strategy strategy;
  Training training;
  Stragglers stragglers;
  Resilience resilience;
  std::optional<Reliability> reliability;  // nullopt: no failure rates, no goodput
  std::optional<Parallelism>
      parallelism;  // nullopt: data parallelism only (every device holds all)
  // Deprecated forms the loader accepted, each a "file:line: field '...': deprecated: ..." line
  // for the user (the CLI prints them on stderr).
  std::vector<std::string> warnings;
  // Set by `validate` on CPUs: both engines time communication only, as the executed ranks do.
  bool compute_left_out = false;

  // Gradient size in bytes exchanged each step.
  double gradient_bytes() const {
    return workload.parameters * training.gradient_bytes_per_element;
  }
};

}  // namespace scaleout::core
