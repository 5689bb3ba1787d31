// The parameter server's messages, typed: what each kind carries and how it sits in the fabric's
// generic Message (kind, a, b, data). Programs build and read messages only through these.
#pragma once

#include <cstdint>

#include "core/programs/fabric.hpp"

namespace scaleout::core::ps {

enum class Kind : int {
  kPull = 1,      // a worker asks for parameters, for its step `step`
  kParams = 2,    // a shard's parameters at `version`, the shard's range as data
  kPush = 3,      // a worker's gradient computed on `version` in its step `step`, the range as data
  kLeave = 4,     // a worker's node failed: `remaining` steps will never come
  kStop = 5,      // the shard reached its last version: no more pulls are served
  kPushPull = 6,  // a push that also asks for the next step's parameters (one message, not two)
};

inline Kind kind_of(const Message& m) { return static_cast<Kind>(m.kind); }

inline Message pull(int from, long step) {
  return {from, static_cast<int>(Kind::kPull), step, 0, {}};
}
inline Message params(int from, std::int64_t version, Span shard) {
  return {from, static_cast<int>(Kind::kParams), version, 0, shard};
}
inline Message push(int from, std::int64_t version, long step, Span shard, bool pull_next) {
  return {from, static_cast<int>(pull_next ? Kind::kPushPull : Kind::kPush), version, step, shard};
}
inline Message leave(int from, long remaining_steps) {
  return {from, static_cast<int>(Kind::kLeave), remaining_steps, 0, {}};
}
inline Message stop(int from, std::int64_t version) {
  return {from, static_cast<int>(Kind::kStop), version, 0, {}};
}

// Fields by kind.
inline long pull_step(const Message& m) { return static_cast<long>(m.a); }  // kPull
inline std::int64_t version_of(const Message& m) { return m.a; }            // kParams, kPush, kStop
inline long push_step(const Message& m) { return static_cast<long>(m.b); }  // kPush, kPushPull
inline long remaining_steps(const Message& m) { return static_cast<long>(m.a); }  // kLeave

}  // namespace scaleout::core::ps
