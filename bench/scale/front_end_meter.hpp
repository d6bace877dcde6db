#pragma once
// What the front end (this process: the coordinator and ZeroMQ's I/O thread) costs: CPU time and
// peak resident memory from getrusage, wall time from the steady clock.
#include <chrono>
#include <string>

namespace yadokari::bench::scale {

struct MeterReading {
  std::chrono::steady_clock::time_point wall;
  double cpu_seconds = 0;  // user + system, every thread of this process
  // The coordinator's own thread (the caller's), user and system apart: the rest of cpu_seconds
  // is ZeroMQ's I/O thread (sockets, CURVE).
  double thread_user_seconds = 0;
  double thread_system_seconds = 0;
};

MeterReading read_meter();
double seconds_between(const MeterReading& from, const MeterReading& to);
double cpu_between(const MeterReading& from, const MeterReading& to);
// "coordinator thread 0.41 s (user 0.12, system 0.29)"
std::string thread_cpu_between(const MeterReading& from, const MeterReading& to);
// Peak resident set of this process so far, MiB.
double peak_rss_mib();

}  // namespace yadokari::bench::scale
