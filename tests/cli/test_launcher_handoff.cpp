// The stand-in's hand-over to a kept process (protocol/launcher_handoff.hpp): which variables are a
// launch's, and a hand-over through a socket pair carries them and the descriptors, refusing
// anything else.
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>

#include "protocol/launcher_handoff.hpp"

using yadokari::protocol::Handoff;
using yadokari::protocol::is_launcher_variable;

TEST_CASE("a launch's variables: the launchers' own and the placement's rank map", "[swap]") {
  CHECK(is_launcher_variable("PMI_RANK=3"));
  CHECK(is_launcher_variable("PMIX_NAMESPACE=x"));
  CHECK(is_launcher_variable("OMPI_COMM_WORLD_RANK=1"));
  CHECK(is_launcher_variable("HYDRA_CONTROL_FD=7"));
  // The new launch's placement says which logical rank each real rank is; a kept process takes it.
  CHECK(is_launcher_variable("YADOKARI_RANK_MAP=0,1,3,2"));
  // The job's own settings stay the kept process's.
  CHECK_FALSE(is_launcher_variable("YADOKARI_RANK_MAPS=1"));
  CHECK_FALSE(is_launcher_variable("YADOKARI_CKPT_DIR=/c"));
  CHECK_FALSE(is_launcher_variable("PATH=/bin"));
}

TEST_CASE("a hand-over carries the launch's variables and the stand-in's streams", "[swap]") {
  int pair[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0);
  Handoff sent;
  sent.variables = {"PMI_RANK=2", "YADOKARI_RANK_MAP=1,0,2"};
  sent.out = STDOUT_FILENO;
  sent.err = STDERR_FILENO;
  std::string why;
  REQUIRE(yadokari::protocol::send_handoff(pair[0], sent, why));
  const auto got = yadokari::protocol::receive_handoff(pair[1], why);
  REQUIRE(got);
  CHECK(got->variables == sent.variables);
  CHECK(got->pmi_fd == -1);
  CHECK(got->out >= 0);
  CHECK(got->err >= 0);
  ::close(got->out);
  ::close(got->err);

  // A variable that is not a launch's is refused: a stand-in never sends the job's own settings.
  Handoff bad = sent;
  bad.variables = {"YADOKARI_CKPT_DIR=/elsewhere"};
  REQUIRE(yadokari::protocol::send_handoff(pair[0], bad, why));
  CHECK_FALSE(yadokari::protocol::receive_handoff(pair[1], why));
  CHECK(why == "the stand-in sent a variable that is not a launcher's: YADOKARI_CKPT_DIR");
  ::close(pair[0]);
  ::close(pair[1]);
}
