#pragma once
// What the front end (this process: the coordinator and ZeroMQ's I/O thread) costs: CPU time and
// peak resident memory from getrusage, wall time from the steady clock.
#include <chrono>

namespace yadokari::bench::scale {

struct MeterReading {
  std::chrono::steady_clock::time_point wall;
  double cpu_seconds = 0;  // user + system, every thread of this process
};

MeterReading read_meter();
double seconds_between(const MeterReading& from, const MeterReading& to);
double cpu_between(const MeterReading& from, const MeterReading& to);
// Peak resident set of this process so far, MiB.
double peak_rss_mib();

}  // namespace yadokari::bench::scale
