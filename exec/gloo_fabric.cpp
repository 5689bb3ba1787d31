#include "exec/gloo_fabric.hpp"

#include <gloo/common/error.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>

#include "core/programs/strategy.hpp"
#include "exec/compute_kernel.hpp"

namespace scaleout::exec {

namespace {
// Gloo matches transfers between two ranks by slot, in posting order.
constexpr std::uint64_t kDataSlot = 1;
constexpr std::uint64_t kHeaderSlot = 2;
constexpr std::uint64_t kMessageDataSlot = 3;
constexpr int kHeaderWords = 6;  // kind, a, b, data.begin, data.count, from
}  // namespace

GlooFabric::GlooFabric(std::shared_ptr<gloo::Context> context, GradientBuffer& data,
                       const core::CheckValues& values, std::chrono::milliseconds timeout,
                       std::int64_t chunk_elements)
    : context_(std::move(context)),
      data_(data),
      values_(values),
      timeout_(timeout),
      chunk_elements_(chunk_elements) {}

void GlooFabric::run_exchange(int to, int from, int count, const StepFn& step_at,
                              const StepTotals* /*totals*/) {
  std::vector<core::ExchangeStep> steps;
  for (int i = 0; i < count; ++i) steps.push_back(step_at(i));
  auto chunks_of = [&](core::Span span) {
    int n = static_cast<int>(
        std::max<std::int64_t>(1, (span.count + chunk_elements_ - 1) / chunk_elements_));
    std::vector<core::Span> out;
    for (int c = 0; c < n; ++c) out.push_back(core::split_part(span, n, c));
    return out;
  };
  bool chained = chunk_elements_ > 0 && count > 1;
  for (int i = 1; i < count && chained; ++i) chained = steps[i].send == steps[i - 1].recv;
  if (!chained) {
    // Step by step, each step's ranges whole: nothing to pipeline, and on loopback, where copies
    // are the cost, chunks only add messages (halving-doubling: 0.94 of Gloo's busbw in 2 MB
    // chunks, 1.15 whole; the same on the emulated cluster either way).
    for (const auto& st : steps) {
      std::vector<Handle> handles;
      if (st.recv.count > 0) handles.push_back(post_recv(from, st.recv, st.combine));
      if (st.send.count > 0) handles.push_back(post_send(to, st.send));
      wait_all(handles);
    }
    return;
  }
  std::vector<Handle> sends, previous_recvs;
  auto post_recvs = [&](const core::ExchangeStep& st) {
    std::vector<Handle> handles;
    for (const auto& piece : chunks_of(st.recv))
      if (piece.count > 0) handles.push_back(post_recv(from, piece, st.combine));
    return handles;
  };
  previous_recvs = post_recvs(steps[0]);
  for (const auto& piece : chunks_of(steps[0].send))
    if (piece.count > 0) sends.push_back(post_send(to, piece));
  for (int i = 1; i < count; ++i) {
    std::vector<Handle> recvs = post_recvs(steps[i]);
    // This step sends what the last one received, chunk by chunk, as each chunk lands.
    std::size_t c = 0;
    for (const auto& piece : chunks_of(steps[i].send)) {
      if (piece.count == 0) continue;
      wait_one(pending_[previous_recvs[c++]]);
      sends.push_back(post_send(to, piece));
    }
    for (; c < previous_recvs.size(); ++c) wait_one(pending_[previous_recvs[c]]);
    previous_recvs = std::move(recvs);
  }
  wait_all(previous_recvs);
  wait_all(sends);
}

GlooFabric::~GlooFabric() {
  try {
    reap_message_sends(true);
  } catch (...) {
  }
}

core::Fabric::Handle GlooFabric::post_send(int peer, core::Span span) {
  Pending p;
  p.peer = peer;
  p.send = true;
  p.span = span;
  post_parts(p, data_.at(span.begin), data_.bytes(span.count), kDataSlot);
  pending_.push_back(std::move(p));
  return static_cast<Handle>(pending_.size() - 1);
}

core::Fabric::Handle GlooFabric::post_recv(int peer, core::Span span, core::Combine combine) {
  Pending p;
  p.peer = peer;
  p.span = span;
  p.combine = combine;
  // An overwrite lands in place; an addition needs the incoming values beside the local ones.
  std::byte* target = data_.at(span.begin);
  if (combine == core::Combine::kAdd) {
    take_scratch(p, data_.bytes(span.count));
    target = p.scratch.get();
  }
  post_parts(p, target, data_.bytes(span.count), kDataSlot);
  pending_.push_back(std::move(p));
  return static_cast<Handle>(pending_.size() - 1);
}

void GlooFabric::wait_one(Pending& p) {
  if (p.done) return;
  try {
    for (auto& buffer : p.buffers)
      if (!(p.send ? buffer->waitSend(timeout_) : buffer->waitRecv(timeout_))) throw PeerError("");
  } catch (const std::exception& e) {
    throw PeerError("rank " + std::to_string(rank()) + ": no " +
                    (p.send ? "send to" : "receive from") + " rank " + std::to_string(p.peer) +
                    " within " + std::to_string(timeout_.count()) + " ms (" + e.what() + ")");
  }
  if (!p.send && p.combine == core::Combine::kAdd && p.scratch) {
    data_.add(p.span, p.scratch.get());
    give_back_scratch(p);  // combined: reusable now, not at the bucket's end
  }
  p.buffers.clear();
  p.done = true;
}

int GlooFabric::rails_to(int peer) const {
  if (rails_.empty() || rank_node_.at(peer) == rank_node_.at(rank())) return 1;
  return static_cast<int>(rails_.size()) + 1;
}

void GlooFabric::post_parts(Pending& p, std::byte* base, std::size_t bytes, std::uint64_t slot) {
  std::int64_t elements = static_cast<std::int64_t>(bytes / data_.bytes(1));
  int parts = rails_to(p.peer);
  for (int r = 0; r < parts; ++r) {
    core::Span part = core::split_part(core::Span{0, elements}, parts, r);
    if (part.count == 0 && parts > 1) continue;  // fewer elements than rails
    auto& context = r == 0 ? context_ : rails_[r - 1];
    p.buffers.push_back(
        context->createUnboundBuffer(base + data_.bytes(part.begin), data_.bytes(part.count)));
    if (p.send)
      p.buffers.back()->send(p.peer, slot);
    else
      p.buffers.back()->recv(p.peer, slot);
  }
}

void GlooFabric::take_scratch(Pending& p, std::size_t bytes) {
  auto it = spare_scratch_.lower_bound(bytes);
  if (it != spare_scratch_.end()) {
    p.scratch_capacity = it->first;
    p.scratch = std::move(it->second);
    spare_scratch_.erase(it);
  } else {
    p.scratch.reset(new std::byte[bytes]);
    p.scratch_capacity = bytes;
  }
}

void GlooFabric::give_back_scratch(Pending& p) {
  spare_scratch_.emplace(p.scratch_capacity, std::move(p.scratch));
  p.scratch_capacity = 0;
}

void GlooFabric::wait_all(const std::vector<Handle>& handles) {
  for (Handle h : handles) wait_one(pending_[h]);
}

void GlooFabric::end_bucket() { pending_.clear(); }

void GlooFabric::send_message(int peer, const core::Message& m) {
  reap_message_sends(false);
  auto header = std::make_unique<std::vector<std::int64_t>>(
      std::vector<std::int64_t>{m.kind, m.a, m.b, m.data.begin, m.data.count, rank()});
  auto h = std::make_unique<Pending>();
  h->peer = peer;
  h->send = true;
  h->buffers.push_back(
      context_->createUnboundBuffer(header->data(), kHeaderWords * sizeof(std::int64_t)));
  h->buffers.back()->send(peer, kHeaderSlot);
  header_storage_.push_back(std::move(header));
  message_sends_.push_back(std::move(h));
  if (m.data.count > 0) {
    // The values are taken now: copy them, the buffer may change before the transfer ends.
    auto d = std::make_unique<Pending>();
    d->peer = peer;
    d->send = true;
    std::size_t bytes = data_.bytes(m.data.count);
    d->scratch.reset(new std::byte[bytes]);
    std::memcpy(d->scratch.get(), data_.at(m.data.begin), bytes);
    post_parts(*d, d->scratch.get(), bytes, kMessageDataSlot);
    message_sends_.push_back(std::move(d));
  }
}

void GlooFabric::reap_message_sends(bool all) {
  // Gloo's sends are rendezvous: one completes only once its receiver posted a receive. Waiting
  // for sends while sending could deadlock two ranks that send to each other, so message sends
  // are only waited for at the end.
  if (!all) return;
  for (auto& p : message_sends_) wait_one(*p);
  message_sends_.clear();
  header_storage_.clear();
}

core::Message GlooFabric::receive_message() {
  std::vector<std::int64_t> header(kHeaderWords);
  auto buffer = context_->createUnboundBuffer(header.data(), kHeaderWords * sizeof(std::int64_t));
  std::vector<int> everyone;
  for (int r = 0; r < size(); ++r)
    if (r != rank()) everyone.push_back(r);
  buffer->recv(everyone, kHeaderSlot);
  int from = -1;
  try {
    if (!buffer->waitRecv(&from, timeout_)) throw PeerError("");
  } catch (const std::exception& e) {
    throw PeerError("rank " + std::to_string(rank()) + ": no message from any rank within " +
                    std::to_string(timeout_.count()) + " ms (" + e.what() + ")");
  }
  core::Message m{static_cast<int>(header[5]), static_cast<int>(header[0]), header[1], header[2],
                  core::Span{header[3], header[4]}};
  held_.resize(data_.bytes(m.data.count));
  held_span_ = m.data;
  if (m.data.count > 0) {
    Pending p;
    p.peer = m.from;
    post_parts(p, held_.data(), held_.size(), kMessageDataSlot);
    p.combine =
        core::Combine::kReplace;  // lands in held_; accept_data() decides what to do with it
    wait_one(p);
  }
  return m;
}

void GlooFabric::accept_data(core::Combine combine) {
  if (combine == core::Combine::kAdd) {
    data_.add(held_span_, held_.data());
  } else {
    data_.copy_in(held_span_, held_.data());
  }
}

void GlooFabric::produce_gradient(core::Span span) {
  if (filled_ahead_) return;
  if (!produced_) {
    produced_ = std::make_unique<GradientBuffer>(data_.type(), data_.size());
    for (std::int64_t i = 0; i < data_.size(); ++i) produced_->set(i, values_.value(rank(), i));
  }
  if (stage_) stage_(static_cast<std::int64_t>(data_.bytes(span.count)));
  data_.copy_in(span, produced_->at(span.begin));
}

void GlooFabric::fill_gradient_ahead() {
  produce_gradient(core::Span{0, data_.size()});
  filled_ahead_ = true;
}

void GlooFabric::compute(double flops) {
  if (device_compute_) {
    device_compute_(flops);
  } else if (emulated_flops_ > 0) {
    idle(flops / emulated_flops_);
  } else {
    run_flops(flops);
  }
}

core::Device::ComputeTicket GlooFabric::compute_async(double flops) {
  if (!stream_)
    stream_ =
        std::make_unique<ComputeStream>([this](double f) { compute(f); }, [this] { return now(); });
  return stream_->enqueue(flops);
}

double GlooFabric::wait_compute(ComputeTicket ticket) { return stream_->wait(ticket); }

void GlooFabric::idle(double seconds) {
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

void GlooFabric::local_work(double, const WordsFn& apply) {
  if (data_.type() != ElementType::kFp32)
    throw std::logic_error("local work on words needs an fp32 buffer");
  apply(reinterpret_cast<float*>(data_.at(0)));
}

void GlooFabric::accept_update(double, const UpdateFn& apply) {
  if (data_.type() != ElementType::kFp32)
    throw std::logic_error("an update on words needs an fp32 buffer");
  apply(reinterpret_cast<float*>(data_.at(0)), reinterpret_cast<const float*>(held_.data()));
}

double GlooFabric::now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

}  // namespace scaleout::exec
