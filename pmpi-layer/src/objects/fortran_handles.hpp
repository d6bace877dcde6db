// A handle's Fortran integer and back: the spelling of virtual handles in Fortran, used by the
// Fortran bindings (fortran/) and by the trampolines that call Fortran user functions. With
// Open MPI, virtual objects get Fortran integers from a range the library never uses; with MPICH,
// Fortran integers *are* the C handles and the conversions are identities.
#pragma once

#include "pmpi-layer/src/objects/virtual_handles.hpp"

#include <mpi.h>

namespace yadokari::shim::fortran {

#if defined(OPEN_MPI)
template <class K>
typename K::handle library_f2c(MPI_Fint f) {
  if constexpr (K::code == CommK::code)
    return PMPI_Comm_f2c(f);
  else if constexpr (K::code == GroupK::code)
    return PMPI_Group_f2c(f);
  else if constexpr (K::code == TypeK::code)
    return PMPI_Type_f2c(f);
  else if constexpr (K::code == ErrhK::code)
    return PMPI_Errhandler_f2c(f);
  else if constexpr (K::code == OpK::code)
    return PMPI_Op_f2c(f);
  else if constexpr (K::code == InfoK::code)
    return PMPI_Info_f2c(f);
  else if constexpr (K::code == ReqK::code)
    return PMPI_Request_f2c(f);
  else
    return PMPI_Message_f2c(f);
}

template <class K>
MPI_Fint library_c2f(typename K::handle c) {
  if constexpr (K::code == CommK::code)
    return PMPI_Comm_c2f(c);
  else if constexpr (K::code == GroupK::code)
    return PMPI_Group_c2f(c);
  else if constexpr (K::code == TypeK::code)
    return PMPI_Type_c2f(c);
  else if constexpr (K::code == ErrhK::code)
    return PMPI_Errhandler_c2f(c);
  else if constexpr (K::code == OpK::code)
    return PMPI_Op_c2f(c);
  else if constexpr (K::code == InfoK::code)
    return PMPI_Info_c2f(c);
  else if constexpr (K::code == ReqK::code)
    return PMPI_Request_c2f(c);
  else
    return PMPI_Message_c2f(c);
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
  if (codec::is_virtual(c))
    return static_cast<MPI_Fint>(codec::kFortranTag + static_cast<std::int32_t>(codec::index_of(c)));
  return library_c2f<K>(c);
}
#else
template <class K>
typename K::handle to_c(MPI_Fint f) {
  return static_cast<typename K::handle>(f);
}
template <class K>
MPI_Fint to_f(typename K::handle c) {
  return static_cast<MPI_Fint>(c);
}
#endif

}  // namespace yadokari::shim::fortran
