/* Preprocessed by the build to list the functions of the MPI library at hand. */
#include <mpi.h>
