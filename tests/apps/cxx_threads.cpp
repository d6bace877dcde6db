// C++ threads of an MPI application (tests/apps/README.md): a std::thread worker fed one job per
// iteration through a std::mutex and std::condition_variable (whose wait is libstdc++'s function,
// which calls pthread_cond_wait), counting its jobs in a thread_local and throwing and catching an
// exception in each; a second std::thread in a loop of std::this_thread::sleep_for. Both are alive
// at the pause point, parked there and started again after the restart
// (checkpoint/memory/README.md, "Threads"). The worker's results go to a per-rank file.
#include <mpi.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include "tests/apps/pause_point.h"

namespace {

std::mutex g_lock;
std::condition_variable g_posted, g_done;
int g_job = -1;
bool g_finished, g_stop;
double g_result;
thread_local long t_jobs;

void work() {
  int last = -1;
  std::unique_lock<std::mutex> lock(g_lock);
  for (;;) {
    g_posted.wait(lock, [&] { return g_job != last || g_stop; });
    if (g_stop) break;
    last = g_job;
    lock.unlock();
    double sum = 0;
    for (int i = 0; i < 100000; ++i) sum += static_cast<double>((i * (last + 3)) % 13);
    try {
      if (last % 2 == 0) throw std::runtime_error("even job " + std::to_string(last));
    } catch (const std::runtime_error& e) {
      sum += static_cast<double>(std::string(e.what()).size());
    }
    ++t_jobs;
    lock.lock();
    g_result = sum;
    g_finished = true;
    g_done.notify_one();
  }
  g_result = static_cast<double>(t_jobs);
}

std::atomic<bool> g_stop_sleeping{false};
std::atomic<long> g_naps{0};

void nap() {
  while (!g_stop_sleeping.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    g_naps.fetch_add(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::ofstream out("cxx_threads." + std::to_string(rank) + ".txt");
  std::thread worker(work), sleeper(nap);
  for (int iteration = 0; iteration < 20; ++iteration) {
    if (iteration == 10) yk_app_pause_point(MPI_COMM_WORLD);
    double local = 0;
    {
      std::unique_lock<std::mutex> lock(g_lock);
      g_job = iteration + rank;
      g_finished = false;
      g_posted.notify_one();
      g_done.wait(lock, [] { return g_finished; });
      local = g_result;
    }
    double total = 0;
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    out << "iteration " << iteration << " local " << std::setprecision(17) << local << "\n";
    if (rank == 0) std::printf("iteration %d total %.17g\n", iteration, total);
  }
  {
    std::lock_guard<std::mutex> lock(g_lock);
    g_stop = true;
  }
  g_posted.notify_one();
  worker.join();
  g_stop_sleeping.store(true);
  sleeper.join();
  out << "worker jobs " << g_result << ", sleeper napped " << (g_naps.load() > 0 ? "yes" : "no") << "\n";
  out.close();
  if (rank == 0) std::printf("done\n");
  MPI_Finalize();
  return 0;
}
