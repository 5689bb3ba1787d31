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

// The most one TCP connection keeps in flight in this process's network namespace: the send
// buffer's ceiling (net.ipv4.tcp_wmem's maximum) or the payload share of the receive buffer's
// (tcp_rmem's maximum less its 1 / 2^tcp_adv_win_scale of overhead), whichever is smaller. Read
// from the kernel: a link without delay (netem is not available for the emulated cluster) never
// fills a window, so a rate cannot show it. 0 when the files cannot be read.
double kernel_tcp_window();

}  // namespace scaleout::exec
