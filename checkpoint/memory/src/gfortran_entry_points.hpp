#pragma once
// libgfortran's own functions, behind the layer's interposed ones (fortran_units.cpp). libgfortran
// comes with the program, or only later with a dlopen'ed library (a Fortran plugin, a Python
// extension, LAPACK behind numpy), whose calls reach the interposed functions all the same; so the
// real ones are resolved at load and, while not found, again at each use.
#include "checkpoint/memory/src/gfortran_abi.hpp"

namespace yadokari::memory::gfortran {

// The functions the unit table calls; every pointer is null while libgfortran is not loaded.
const Functions& functions();

// The interposed entry points that forward to libgfortran's own.
enum class Entry {
  st_open,
  st_close,
  st_read,
  st_read_done,
  st_write,
  st_write_done,
  st_backspace,
  st_rewind,
  st_endfile,
  st_inquire,
  random_r4,
  random_r8,
  random_r10,
  random_r16,
  arandom_r4,
  arandom_r8,
  arandom_r10,
  arandom_r16,
  random_seed_i4,
  random_seed_i8,
  random_init,
  count
};

// libgfortran's own `e`. Called from the interposed `e`, whose caller proves libgfortran is loaded:
// if it is not found all the same, the process stops with one line instead of jumping to null.
void* real(Entry e);

}  // namespace yadokari::memory::gfortran
