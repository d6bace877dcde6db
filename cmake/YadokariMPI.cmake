# Both MPI installs side by side. CMake's FindMPI finds only one, so we describe each flavour
# from its pkg-config file and expose interface targets:
#   yadokari::mpi::openmpi::c   yadokari::mpi::openmpi::fortran
#   yadokari::mpi::mpich::c     yadokari::mpi::mpich::fortran
# YADOKARI_MPI_FLAVOURS lists the flavours found; examples and the shim are built once per flavour.
find_package(PkgConfig REQUIRED)

set(YADOKARI_MPI_FLAVOURS "")

pkg_check_modules(YK_OMPI IMPORTED_TARGET ompi-c)
if(YK_OMPI_FOUND)
  pkg_get_variable(YK_OMPI_LIBDIR ompi-fort libdir)
  pkg_get_variable(YK_OMPI_FORTDIR ompi-fort fortrandir)
  add_library(yk_mpi_openmpi_c INTERFACE)
  target_link_libraries(yk_mpi_openmpi_c INTERFACE PkgConfig::YK_OMPI)
  # C API only: the deprecated MPI C++ bindings would need libmpi_cxx.
  target_compile_definitions(yk_mpi_openmpi_c INTERFACE OMPI_SKIP_MPICXX=1)
  add_library(yadokari::mpi::openmpi::c ALIAS yk_mpi_openmpi_c)
  set(YADOKARI_MPI_INCLUDE_DIRS_openmpi ${YK_OMPI_INCLUDE_DIRS})
  add_library(yk_mpi_openmpi_fortran INTERFACE)
  # `use mpi` modules live under the gfortran module dir; mpif.h under libdir.
  file(GLOB YK_OMPI_MODDIR LIST_DIRECTORIES true "${YK_OMPI_LIBDIR}/../../fortran/gfortran-mod-*/openmpi")
  target_include_directories(yk_mpi_openmpi_fortran INTERFACE ${YK_OMPI_MODDIR} ${YK_OMPI_LIBDIR})
  target_link_directories(yk_mpi_openmpi_fortran INTERFACE ${YK_OMPI_LIBDIR})
  target_link_libraries(yk_mpi_openmpi_fortran INTERFACE mpi_usempif08 mpi_usempi_ignore_tkr mpi_mpifh mpi)
  add_library(yadokari::mpi::openmpi::fortran ALIAS yk_mpi_openmpi_fortran)
  list(APPEND YADOKARI_MPI_FLAVOURS openmpi)
endif()

pkg_check_modules(YK_MPICH IMPORTED_TARGET mpich)
if(YK_MPICH_FOUND)
  pkg_get_variable(YK_MPICH_INCLUDEDIR mpich includedir)
  pkg_get_variable(YK_MPICH_LIBDIR mpich libdir)
  add_library(yk_mpi_mpich_c INTERFACE)
  target_include_directories(yk_mpi_mpich_c INTERFACE ${YK_MPICH_INCLUDEDIR})
  target_link_directories(yk_mpi_mpich_c INTERFACE ${YK_MPICH_LIBDIR})
  target_link_libraries(yk_mpi_mpich_c INTERFACE mpich)
  target_compile_definitions(yk_mpi_mpich_c INTERFACE MPICH_SKIP_MPICXX=1)
  add_library(yadokari::mpi::mpich::c ALIAS yk_mpi_mpich_c)
  set(YADOKARI_MPI_INCLUDE_DIRS_mpich ${YK_MPICH_INCLUDEDIR})
  add_library(yk_mpi_mpich_fortran INTERFACE)
  target_include_directories(yk_mpi_mpich_fortran INTERFACE ${YK_MPICH_INCLUDEDIR})
  target_compile_options(yk_mpi_mpich_fortran INTERFACE $<$<COMPILE_LANGUAGE:Fortran>:-fallow-argument-mismatch>)
  target_link_directories(yk_mpi_mpich_fortran INTERFACE ${YK_MPICH_LIBDIR})
  target_link_libraries(yk_mpi_mpich_fortran INTERFACE mpichfort mpich)
  add_library(yadokari::mpi::mpich::fortran ALIAS yk_mpi_mpich_fortran)
  list(APPEND YADOKARI_MPI_FLAVOURS mpich)
endif()

if(NOT YADOKARI_MPI_FLAVOURS)
  message(FATAL_ERROR "yadokari: neither Open MPI (ompi-c.pc) nor MPICH (mpich.pc) found; run ci/install-deps.sh")
endif()
message(STATUS "yadokari: MPI flavours: ${YADOKARI_MPI_FLAVOURS}")

# Launchers, recorded for tests and the CLI's defaults.
find_program(YADOKARI_MPIRUN_OPENMPI NAMES mpirun.openmpi)
find_program(YADOKARI_MPIEXEC_MPICH NAMES mpiexec.mpich mpiexec.hydra)

# yadokari_add_mpi_executable(<name> LANG <C|CXX|Fortran> SOURCES ...)
# Builds <name> once per flavour as build/examples/<flavour>/<name> (target <name>-<flavour>).
function(yadokari_add_mpi_executable name)
  cmake_parse_arguments(ARG "" "LANG;OUTPUT_DIR" "SOURCES;LIBS" ${ARGN})
  if(NOT ARG_OUTPUT_DIR)
    set(ARG_OUTPUT_DIR ${CMAKE_BINARY_DIR}/examples)
  endif()
  foreach(flavour IN LISTS YADOKARI_MPI_FLAVOURS)
    set(t ${name}-${flavour})
    add_executable(${t} ${ARG_SOURCES})
    set_target_properties(${t} PROPERTIES OUTPUT_NAME ${name}
      RUNTIME_OUTPUT_DIRECTORY ${ARG_OUTPUT_DIR}/${flavour}
      Fortran_MODULE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/mod-${t})
    if(ARG_LANG STREQUAL "Fortran")
      target_link_libraries(${t} PRIVATE yadokari::mpi::${flavour}::fortran ${ARG_LIBS})
    else()
      target_link_libraries(${t} PRIVATE yadokari::mpi::${flavour}::c ${ARG_LIBS})
    endif()
  endforeach()
endfunction()
