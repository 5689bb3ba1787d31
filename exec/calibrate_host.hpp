// The host's software costs, measured for `calibrate`: the rate of host copies (memcpy) and the
// latency of a bare TCP connection, which, set against Gloo's small-message round trip over the
// same pair, gives Gloo's per-message overhead.
#pragma once

#include <string>

namespace scaleout::exec {

// Bytes per second of memcpy between two buffers larger than the caches.
double measure_copy_rate();

// A ping-pong of 4-byte messages over a plain TCP connection between ranks 0 and 1 (each at
// `host`, its own address), rendezvousing through files in `dir`. Returns the median round trip
// in seconds (on both ranks). Throws std::runtime_error when the connection fails.
double tcp_round_trip(int rank, const std::string& dir, const std::string& host, int trips);

}  // namespace scaleout::exec
