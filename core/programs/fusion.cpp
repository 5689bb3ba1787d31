#include "core/programs/fusion.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/model/compute_rate.hpp"
#include "core/programs/strategy.hpp"

namespace scaleout::core {

namespace {

using FusionKind = Training::Fusion::Kind;

// How many even buckets of at most `limit` bytes `count` elements leave in.
std::int64_t pieces(std::int64_t count, int bytes_per_element, double limit) {
  if (count <= 0) return 0;
  double bytes = static_cast<double>(count) * bytes_per_element;
  double n = std::ceil(bytes / limit - 1e-9);
  return n >= static_cast<double>(count) ? count : std::max<std::int64_t>(1, std::llround(n));
}

// Horovod: points whose ready time falls in the same cycle leave together at its end; a group is
// ready (for the step model) when its last point is, and the engines wait for the boundary.
std::vector<ReadyPoint> cycle_groups(const Plan& plan, const std::vector<ReadyPoint>& points) {
  double backward = nominal_backward_s(plan), cycle = plan.training.fusion.cycle_time;
  std::vector<ReadyPoint> groups;
  double last_tick = -1;
  for (const auto& p : points) {
    double tick = std::ceil(p.fraction * backward / cycle - 1e-9);
    if (!groups.empty() && tick == last_tick) {
      groups.back().count += p.count;
      groups.back().fraction = p.fraction;
    } else {
      groups.push_back(p);
    }
    last_tick = tick;
  }
  return groups;
}

// Legacy and Horovod: each point (or cycle group) leaves in even buckets of at most `limit`.
std::vector<ReadyPoint> split_points(const Plan& plan, const std::vector<ReadyPoint>& points,
                                     double& limit) {
  const auto& t = plan.training;
  limit = !t.overlap                              ? std::numeric_limits<double>::infinity()
          : t.fusion.kind == FusionKind::kHorovod ? t.fusion.threshold
                                                  : t.fusion_buffer;
  return t.overlap && t.fusion.kind == FusionKind::kHorovod ? cycle_groups(plan, points) : points;
}

// DDP's buckets in elements: the first (at most first_bucket bytes, within the first point that
// produces anything), then bucket_cap pieces counted back from the end of the gradient, the
// partial one right after the first. PyTorch puts the partial bucket last; counting from the end
// keeps the same count and sizes while a bigger gradient never gets a smaller last bucket (which
// would let it finish sooner than a smaller one).
struct DdpLayout {
  std::int64_t first = 0, partial = 0, full = 0, cap = 1;
};

DdpLayout ddp_layout(const Plan& plan, const std::vector<ReadyPoint>& points) {
  const auto& f = plan.training.fusion;
  int bpe = plan.training.gradient_bytes_per_element;
  DdpLayout d;
  std::int64_t elements = 0, first_point = 0;
  for (const auto& p : points) {
    if (first_point == 0) first_point = p.count;
    elements += p.count;
  }
  d.cap = std::max<std::int64_t>(1, static_cast<std::int64_t>(f.bucket_cap / bpe));
  auto first = std::max<std::int64_t>(1, static_cast<std::int64_t>(f.first_bucket / bpe));
  d.first = std::min(first, first_point);
  std::int64_t rest = elements - d.first;
  d.full = rest / d.cap;
  d.partial = rest % d.cap;
  return d;
}

// Buckets of `sizes` elements, in order from the gradient's start, each ready with the point that
// produces its last element.
std::vector<Bucket> buckets_of(const std::vector<std::int64_t>& sizes,
                               const std::vector<ReadyPoint>& points) {
  std::vector<Bucket> out;
  std::size_t point = 0;
  std::int64_t point_end = points.empty() ? 0 : points[0].count, begin = 0;
  for (std::int64_t count : sizes) {
    if (count <= 0) continue;
    std::int64_t last = begin + count - 1;
    while (point + 1 < points.size() && point_end <= last) point_end += points[++point].count;
    out.push_back({Span{begin, count}, points[point].fraction});
    begin += count;
  }
  return out;
}

// DDP over listed tensors, as PyTorch assigns them (compute_bucket_assignment_by_size): whole
// tensors in backward order join the open bucket, which closes once it holds at least its limit
// (first_bucket for the first, bucket_cap after); a tensor is never split.
std::vector<std::int64_t> ddp_tensor_buckets(const Plan& plan) {
  const auto& f = plan.training.fusion;
  double bpe = plan.training.gradient_bytes_per_element, limit = f.first_bucket;
  std::vector<std::int64_t> sizes;
  std::int64_t open = 0;
  for (std::int64_t t : plan.workload.tensors) {
    open += t;
    if (static_cast<double>(open) * bpe >= limit) {
      sizes.push_back(open);
      open = 0;
      limit = f.bucket_cap;
    }
  }
  if (open > 0) sizes.push_back(open);
  return sizes;
}

std::vector<std::int64_t> ddp_sizes(const Plan& plan, const std::vector<ReadyPoint>& points) {
  if (!plan.workload.tensors.empty()) return ddp_tensor_buckets(plan);
  DdpLayout d = ddp_layout(plan, points);
  std::vector<std::int64_t> sizes{d.first, d.partial};
  sizes.insert(sizes.end(), static_cast<std::size_t>(d.full), d.cap);
  return sizes;
}

}  // namespace

double nominal_backward_s(const Plan& plan) {
  double flops =
      plan.workload.flops_per_sample * plan.training.batch_per_worker / compute_efficiency(plan);
  return (flops - flops / 3) / plan.cluster.device.flops;
}

double fusion_cycle(const Plan& plan) {
  const auto& t = plan.training;
  return t.overlap && t.fusion.kind == FusionKind::kHorovod ? t.fusion.cycle_time : 0.0;
}

const char* fusion_size_field(const Plan& plan) {
  switch (plan.training.fusion.kind) {
    case FusionKind::kHorovod:
      return "training.fusion.threshold";
    case FusionKind::kDdp:
      return "training.fusion.bucket_cap";
    default:
      return "training.fusion_buffer";
  }
}

int fusion_size_line(const Plan& plan) {
  return plan.training.fusion.kind == FusionKind::kLegacy ? plan.training.fusion_line
                                                          : plan.training.fusion.line;
}

const char* fusion_kind_name(FusionKind kind) {
  switch (kind) {
    case FusionKind::kHorovod:
      return "horovod";
    case FusionKind::kDdp:
      return "ddp";
    default:
      return "legacy";
  }
}

double count_fused_buckets(const Plan& plan, const std::vector<ReadyPoint>& points) {
  int bpe = plan.training.gradient_bytes_per_element;
  if (plan.training.overlap && plan.training.fusion.kind == FusionKind::kDdp) {
    if (!plan.workload.tensors.empty()) return static_cast<double>(ddp_tensor_buckets(plan).size());
    DdpLayout d = ddp_layout(plan, points);
    return (d.first > 0) + (d.partial > 0) + static_cast<double>(d.full);
  }
  double limit = 0, n = 0;
  for (const auto& p : split_points(plan, points, limit))
    n += static_cast<double>(pieces(p.count, bpe, limit));
  return n;
}

std::vector<Bucket> fuse_buckets(const Plan& plan, const std::vector<ReadyPoint>& points) {
  if (plan.training.overlap && plan.training.fusion.kind == FusionKind::kDdp)
    return buckets_of(ddp_sizes(plan, points), points);
  std::vector<Bucket> out;
  double limit = 0;
  std::int64_t begin = 0;
  for (const auto& p : split_points(plan, points, limit)) {
    std::int64_t n = pieces(p.count, plan.training.gradient_bytes_per_element, limit);
    Span span{begin, p.count};
    for (std::int64_t i = 0; i < n; ++i)
      out.push_back({split_part(span, static_cast<int>(n), static_cast<int>(i)), p.fraction});
    begin += p.count;
  }
  return out;
}

}  // namespace scaleout::core
