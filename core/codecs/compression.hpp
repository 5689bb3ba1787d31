// Gradient compression (`training.compression`): what each kind puts on the wire for a bucket, and
// what its encoding and decoding cost at the device's rates. Every engine takes its figures from
// here: the compressed ring program (core/programs/strategies/compressed_ring.cpp) lays its scratch
// out as below, the analytic engine prices the same transfers, and results report the wire bytes.
//
// Wire formats, in 4-byte words (a bucket of c fp32 elements over n workers):
//  - topk, randomk: each worker keeps k = round(density x c) elements (at least 1) and sends
//    (index, value) pairs: a block of 2k words, all-gathered around the ring, so each worker sends
//    (n-1) x 2k words; every worker then adds the n blocks into a zeroed bucket.
//  - randomk with shared_indices (GRACE's random-k): every worker draws the same k indices from a
//    seed of (step, bucket), keeps them locally, and the k values are ring all-reduced: each worker
//    sends 2(n-1)/n x k words; every worker then writes the summed values into a zeroed bucket.
//  - int8, onebit, quantize: the compressed all-reduce of 1-bit Adam. The bucket is cut into n
//    parts; each worker encodes every part (one fp32 scale per `chunk` bytes of gradient, then
//    32 / bits elements per word: int8 4, onebit 32, quantize with `bits` 1, 2, 4 or 8) and sends
//    part j to its owner (n-1 direct sends); the owner decodes the n copies, sums them in worker
//    order, adds its own error feedback, re-encodes, and the encoded parts are all-gathered around
//    the ring. Each worker sends 2(n-1) parts' words.
//  - int8, onebit, quantize with `exchange: allgather` (GRACE's): each worker encodes its whole
//    bucket into one slot (scales, then codes); the n slots are all-gathered around the ring and
//    every worker decodes and adds them in segment order into a zeroed bucket: (n-1) slots' words.
//    With `majority_vote` (1-bit codes) every element is the sign most workers sent (signSGD).
//  - powersgd: two all-reduces of fp32 sums (P, rows x r, then Q, cols x r, of the bucket's matrix:
//    core/codecs/powersgd_codec.hpp), each as direct sends of n-1 parts to their owners and a ring
//    all-gather of the owners' sums: 2(n-1) x (ceil(rows r / n) + ceil(cols r / n)) words.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/plan/plan.hpp"

namespace scaleout::core {

// a / b rounded up. REQUIRES: a >= 0, b > 0.
inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

const char* compression_name(CompressionKind kind);
std::optional<CompressionKind> parse_compression_kind(const std::string& name);
const std::vector<const char*>& compression_names();

// Elements a sparse kind keeps of `count`: round(density x count), at least 1, at most count.
std::int64_t sparse_count(const Compression& c, std::int64_t count);
// Elements per fp32 scale of a quantized kind (chunk bytes / 4, at least 1).
std::int64_t elements_per_scale(const Compression& c);
// Elements packed into one 4-byte word: 32 / bits (int8 4, onebit 32, quantize 4-bit 8).
int elements_per_word(const Compression& c);
// The largest code magnitude of a `bits`-bit element: 127 at 8 bits, 7 at 4, 1 at 2; 1-bit codes
// are signs (1 too). A chunk's scale is its max |x| over this (1 bit: its mean |x|).
int quantize_levels(int bits);
// Words of one encoded part of `count` elements (scales, then packed values).
std::int64_t quantized_words(const Compression& c, std::int64_t count);

// The scratch words a worker's compressed exchange of a bucket of `count` elements needs beyond
// the gradient, over `workers` workers (sparse: n blocks of 2k, one when the indices are shared;
// quantized: send, receive and result areas of n slots each; all-gathered: n encoded buckets).
std::int64_t scratch_words(const Compression& c, std::int64_t count, int workers);
// Words of one slot of the quantized layout (the largest part's encoding).
std::int64_t quantized_slot_words(const Compression& c, std::int64_t count, int workers);

// Bytes one worker sends for a bucket of `count` elements (the closed forms above; the
// uncompressed ring all-reduce sends 2(n-1)/n of the bucket).
double compressed_wire_bytes(const Compression& c, std::int64_t count, int workers);
double ring_wire_bytes(std::int64_t count, int bytes_per_element, int workers);

// Seconds a worker spends encoding, reducing as an owner, and decoding a bucket at the device's
// compressor rates (the simulated cost of what an executed run does for real).
struct CodecSeconds {
  double encode = 0;
  double owner = 0;    // quantized kinds: decode n copies, sum, re-encode its part (PowerSGD: sum
                       // its parts of P and of Q)
  double between = 0;  // PowerSGD: orthogonalize P and compute Q, between the two all-reduces
  double decode = 0;
  double total() const { return encode + owner + between + decode; }
};
CodecSeconds codec_seconds(const Compression& c, const DeviceSpec& device, std::int64_t count,
                           int workers);

// Seconds of a bucket's codec work on the worker's own device: over the ring all of it, over the
// parameter server its encoding and decoding of every shard (the servers combine on theirs).
// This work competes with the worker's compute: beside backward it delays backward by as much.
double worker_codec_seconds(const Plan& plan, std::int64_t count);

// What a step's compression amounts to for one worker, summed over the step's buckets (over the
// parameter server: every shard pushed and pulled, the uncompressed figure a dense push and pull;
// the codec seconds include the slowest server's combination of the pushes).
struct CompressionStep {
  std::string kind;
  double wire_bytes_uncompressed = 0;  // the ring all-reduce's bytes sent per worker per step
  double wire_bytes = 0;               // with compression
  double codec_s = 0;                  // encode + owner + decode, at the device's rates
  double error_feedback_bytes = 0;     // the residual buffers a worker keeps
  bool shared_indices = false;         // randomk: the values all-reduced over shared indices
};
CompressionStep compression_step(const Plan& plan, const std::vector<std::int64_t>& bucket_counts);

}  // namespace scaleout::core
