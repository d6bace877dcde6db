// Fortran <-> C conversions for the Fortran bindings the shim provides for Open MPI (its
// Fortran layer calls PMPI_* directly and would bypass the shim). With MPICH, Fortran integers
// *are* the C handles and the library's Fortran layer calls the C wrappers, so the conversions
// below are identities there.
#pragma once

#include "pmpi-layer/src/objects/fortran_handles.hpp"  // to_c, to_f
#include "pmpi-layer/src/objects/virtual_handles.hpp"

#include <mpi.h>

#include <cstddef>
#include <string>

namespace yadokari::shim::fortran {

inline constexpr std::size_t kMaxString = 8192;

// MPI_BOTTOM / MPI_IN_PLACE arrive as addresses of the library's Fortran sentinels.
const void* buffer(const void* f);
void* buffer(void* f);
bool is_status_ignore(const MPI_Fint* f);
bool is_statuses_ignore(const MPI_Fint* f);

// A Fortran status argument: a C status to pass down, copied back unless the app passed
// MPI_STATUS_IGNORE.
class Status {
 public:
  Status(MPI_Fint* f, bool read_in);
  MPI_Status* get() { return ignore_ ? MPI_STATUS_IGNORE : &c_; }
  void copy_out();

 private:
  MPI_Fint* f_;
  bool ignore_;
  MPI_Status c_{};
};

class Statuses {
 public:
  Statuses(MPI_Fint* f, int n);
  Statuses(const Statuses&) = delete;
  Statuses& operator=(const Statuses&) = delete;
  ~Statuses();
  MPI_Status* get() { return ignore_ ? MPI_STATUSES_IGNORE : c_; }
  void copy_out();

 private:
  MPI_Fint* f_;
  int n_;
  bool ignore_;
  MPI_Status* c_ = nullptr;
};

// CHARACTER arguments: blank-padded, not NUL-terminated, length passed separately.
std::string trimmed(const char* f, std::size_t len);
void copy_out(char* f, std::size_t len, const char* c);

}  // namespace yadokari::shim::fortran
