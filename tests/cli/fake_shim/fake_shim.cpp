// Stand-in for the real shim (pmpi-layer/), for testing the runtime on its own: it wraps only
// MPI_Init/MPI_Init_thread/MPI_Finalize and runs the control-plane client exactly as the shim
// must (start after PMPI_Init, stop before PMPI_Finalize), reporting a call count. It also
// plays the rank's side of the checkpoint protocol with fixed counts (fake_rank/), and with
// YADOKARI_FAKE_ASK_CHECKPOINT=1 rank 0 asks for a checkpoint as yadokari_checkpoint() would.
#include <mpi.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "pmpi-layer/src/link/rank_client.hpp"
#include "tests/cli/fake_rank/fake_checkpoint_rank.hpp"

namespace {

std::unique_ptr<yadokari::testing::FakeCheckpointRank> g_checkpoint;
std::unique_ptr<yadokari::link::RankControlClient> g_client;
std::atomic<std::uint64_t> g_calls{0};
std::chrono::steady_clock::time_point g_init_time;

void start_control() {
  int rank = 0, size = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  g_init_time = std::chrono::steady_clock::now();
  yadokari::link::RankIdentity id;
  id.logical_rank = rank;
  id.world_size = size;
  const char* job_id = std::getenv("YADOKARI_JOB_ID");
  const char* flavour = std::getenv("YADOKARI_FLAVOUR");
  yadokari::testing::FakeCheckpointRank::Options options;
  options.rank = rank;
  options.world_size = size;
  options.job_id = job_id ? job_id : "";
  options.flavour = flavour ? flavour : "";
  g_checkpoint = std::make_unique<yadokari::testing::FakeCheckpointRank>(options);
  g_client = yadokari::link::RankControlClient::start_from_env(
      id,
      [] {
        yadokari::protocol::RankStatus status;
        status.mpi_calls_total = g_calls.load();
        status.seconds_since_init =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - g_init_time).count();
        return status;
      },
      g_checkpoint->listener());
  if (!g_client) return;
  g_checkpoint->attach(g_client.get());
  const char* ask = std::getenv("YADOKARI_FAKE_ASK_CHECKPOINT");
  if (rank == 0 && ask && std::strcmp(ask, "1") == 0) g_client->send(yadokari::protocol::CheckpointAsk{rank});
}

}  // namespace

extern "C" {

int MPI_Init(int* argc, char*** argv) {
  const int rc = PMPI_Init(argc, argv);
  ++g_calls;
  if (rc == MPI_SUCCESS) start_control();
  return rc;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  ++g_calls;
  if (rc == MPI_SUCCESS) start_control();
  return rc;
}

int MPI_Finalize(void) {
  ++g_calls;
  g_client.reset();
  return PMPI_Finalize();
}

}  // extern "C"
