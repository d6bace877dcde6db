! Fortran MPI program: Open MPI links libmpi_mpifh/libmpi_usempi*, MPICH libmpichfort.
program mpi_hello
  use mpi
  implicit none
  integer :: rank, ierr
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  print *, 'hello from rank', rank
  call MPI_Finalize(ierr)
end program mpi_hello
