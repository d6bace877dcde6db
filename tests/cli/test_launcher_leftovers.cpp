// Cleaning up after a killed launcher: Open MPI's session directories (launch/launcher_leftovers).
#include <catch2/catch.hpp>

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "runtime/launch/launcher_leftovers.hpp"

namespace fs = std::filesystem;
using namespace yadokari::launch;

namespace {

// A private base for the session directories (TMPDIR), emptied and restored around each test.
class SessionBase {
 public:
  SessionBase() : dir_(fs::temp_directory_path() / ("yk-leftovers-" + std::to_string(getpid()))) {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    if (const char* old = std::getenv("TMPDIR")) old_ = old;
    ::setenv("TMPDIR", dir_.c_str(), 1);
    ::unsetenv("OMPI_MCA_orte_tmpdir_base");
  }
  ~SessionBase() {
    if (old_.empty())
      ::unsetenv("TMPDIR");
    else
      ::setenv("TMPDIR", old_.c_str(), 1);
    fs::remove_all(dir_);
  }
  // A session directory with a file in it, as Open MPI leaves one.
  void make(const std::string& relative) const {
    fs::create_directories(dir_ / relative);
    std::ofstream(dir_ / relative / "contact.txt") << "x";
  }
  std::set<std::string> left() const {
    std::set<std::string> names;
    for (const auto& e : fs::recursive_directory_iterator(dir_))
      if (e.is_directory()) names.insert(fs::relative(e.path(), dir_).string());
    return names;
  }
  const fs::path& dir() const { return dir_; }

 private:
  fs::path dir_;
  std::string old_;
};

const std::string uid = std::to_string(getuid());

}  // namespace

TEST_CASE("the session base follows Open MPI's order of variables", "[leftovers]") {
  SessionBase base;
  CHECK(open_mpi_session_base() == base.dir());
  ::setenv("OMPI_MCA_orte_tmpdir_base", "/somewhere/else", 1);
  CHECK(open_mpi_session_base() == "/somewhere/else");
  ::unsetenv("OMPI_MCA_orte_tmpdir_base");
}

TEST_CASE("a killed launcher's session directories go, nothing else", "[leftovers]") {
  SessionBase base;
  base.make("ompi.vm." + uid + "/pid.4242/1");  // the killed mpirun
  base.make("ompi.vm." + uid + "/pid.4243");    // another job's: stays
  base.make("ompi.node-b." + uid + "/pid.77");  // an orted of the killed launcher's tree
  base.make("ompi.vm.99999/pid.4242");          // another user's: stays
  base.make("pid.4242");                        // not Open MPI's: stays

  CHECK(remove_open_mpi_session_dirs({4242, 77}) == 2);
  // ompi.node-b.<uid> became empty and went too, as Open MPI removes it at the end of a job.
  CHECK(base.left() == std::set<std::string>{"ompi.vm." + uid, "ompi.vm." + uid + "/pid.4243", "ompi.vm.99999",
                                             "ompi.vm.99999/pid.4242", "pid.4242"});
  CHECK(remove_open_mpi_session_dirs({4242}) == 0);
}

TEST_CASE("a lost node's top directories go, not those of a node with a longer name", "[leftovers]") {
  SessionBase base;
  base.make("ompi.ykc-n1." + uid + "/pid.10");
  base.make("ompi.ykc-n1.99999");
  base.make("ompi.ykc-n10." + uid + "/pid.11");

  CHECK(remove_open_mpi_host_dirs("ykc-n1") == 2);
  CHECK(base.left() == std::set<std::string>{"ompi.ykc-n10." + uid, "ompi.ykc-n10." + uid + "/pid.11"});
  CHECK(remove_open_mpi_host_dirs("") == 0);
}

TEST_CASE("no session base at all is nothing to clean", "[leftovers]") {
  SessionBase base;
  ::setenv("TMPDIR", (base.dir() / "missing").c_str(), 1);
  CHECK(remove_open_mpi_session_dirs({1, 2}) == 0);
  CHECK(remove_open_mpi_host_dirs("vm") == 0);
}
