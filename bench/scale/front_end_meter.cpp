#include "bench/scale/front_end_meter.hpp"

#include <sys/resource.h>

#include <cstdio>

namespace yadokari::bench::scale {
namespace {

double seconds_of(const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; }

}  // namespace

MeterReading read_meter() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  rusage thread{};
  getrusage(RUSAGE_THREAD, &thread);
  return {std::chrono::steady_clock::now(), seconds_of(usage.ru_utime) + seconds_of(usage.ru_stime),
          seconds_of(thread.ru_utime), seconds_of(thread.ru_stime)};
}

std::string thread_cpu_between(const MeterReading& from, const MeterReading& to) {
  const double user = to.thread_user_seconds - from.thread_user_seconds;
  const double system = to.thread_system_seconds - from.thread_system_seconds;
  char text[96];
  std::snprintf(text, sizeof text, "coordinator thread %.3f s (user %.3f, system %.3f)", user + system, user, system);
  return text;
}

double seconds_between(const MeterReading& from, const MeterReading& to) {
  return std::chrono::duration<double>(to.wall - from.wall).count();
}

double cpu_between(const MeterReading& from, const MeterReading& to) { return to.cpu_seconds - from.cpu_seconds; }

double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB
}

}  // namespace yadokari::bench::scale
