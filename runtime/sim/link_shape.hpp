#pragma once
// What `sim up --link` turns into on each node's eth0. A plain rate limit ("rate 15mbit") becomes
// a token bucket (tbf), which every kernel has; anything else (delay, jitter, loss, ...) needs
// netem, which some kernels (this machine's) lack: tc's refusal is then reported with that hint.
#include <cstdint>
#include <string>
#include <vector>

namespace yadokari::sim {

// tc's rate syntax: a number and a unit, bits (bit kbit mbit gbit tbit) or bytes (bps kbps mbps
// gbps tbps) per second, k=1000; no unit means bytes per second. Throws SimError(2) otherwise.
std::uint64_t parse_tc_rate_bytes(const std::string& rate);

// The arguments after `tc qdisc add dev eth0 root` for LINK (netem words, e.g. "rate 15mbit delay
// 5ms"): `tbf rate R burst B latency 50ms` when LINK is exactly "rate R", else `netem LINK...`.
// The bucket holds 10 ms at the rate, at least 64 KiB: a segmentation-offloaded veth hands tbf
// packets of up to 64 KiB.
std::vector<std::string> link_qdisc_args(const std::string& link);

}  // namespace yadokari::sim
