// Fortran <-> C conversions for the Fortran bindings the shim provides for Open MPI (its
// Fortran layer calls PMPI_* directly and would bypass the shim). With MPICH, Fortran integers
// *are* the C handles and the library's Fortran layer calls the C wrappers, so the conversions
// below are identities there.
#pragma once

#include "objects/virtual_handles.hpp"

#include <mpi.h>

#include <cstddef>
#include <string>

namespace yk::fortran {

inline constexpr std::size_t kMaxString = 8192;

#if defined(OPEN_MPI)
template <class K>
typename K::handle library_f2c(MPI_Fint f) {
  if constexpr (K::code == CommK::code) return PMPI_Comm_f2c(f);
  else if constexpr (K::code == GroupK::code) return PMPI_Group_f2c(f);
  else if constexpr (K::code == TypeK::code) return PMPI_Type_f2c(f);
  else if constexpr (K::code == ErrhK::code) return PMPI_Errhandler_f2c(f);
  else if constexpr (K::code == OpK::code) return PMPI_Op_f2c(f);
  else if constexpr (K::code == InfoK::code) return PMPI_Info_f2c(f);
  else if constexpr (K::code == ReqK::code) return PMPI_Request_f2c(f);
  else return PMPI_Message_f2c(f);
}

template <class K>
MPI_Fint library_c2f(typename K::handle c) {
  if constexpr (K::code == CommK::code) return PMPI_Comm_c2f(c);
  else if constexpr (K::code == GroupK::code) return PMPI_Group_c2f(c);
  else if constexpr (K::code == TypeK::code) return PMPI_Type_c2f(c);
  else if constexpr (K::code == ErrhK::code) return PMPI_Errhandler_c2f(c);
  else if constexpr (K::code == OpK::code) return PMPI_Op_c2f(c);
  else if constexpr (K::code == InfoK::code) return PMPI_Info_c2f(c);
  else if constexpr (K::code == ReqK::code) return PMPI_Request_c2f(c);
  else return PMPI_Message_c2f(c);
}

// Virtual objects get Fortran integers from a range the library never uses; the index is the
// same as in the C handle, so no second table is needed.
template <class K>
typename K::handle to_c(MPI_Fint f) {
  if (codec::fortran_is_virtual(f))
    return codec::encode<typename K::handle>(K::code, static_cast<std::uint32_t>(f - codec::kFortranTag));
  return library_f2c<K>(f);
}

template <class K>
MPI_Fint to_f(typename K::handle c) {
  if (codec::is_virtual(c)) return static_cast<MPI_Fint>(codec::kFortranTag + static_cast<std::int32_t>(codec::index_of(c)));
  return library_c2f<K>(c);
}
#else
template <class K>
typename K::handle to_c(MPI_Fint f) { return static_cast<typename K::handle>(f); }
template <class K>
MPI_Fint to_f(typename K::handle c) { return static_cast<MPI_Fint>(c); }
#endif

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

}  // namespace yk::fortran
