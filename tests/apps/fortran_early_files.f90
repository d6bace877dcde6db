! Application test (Fortran, `use mpi`): units opened and written before MPI_INIT and kept open
! (tests/apps/README.md). A restarted process runs the code before MPI_INIT again
! (docs/architecture.md, pitfall 10), so there
!   replaced.<rank>.txt  OPEN(STATUS='REPLACE'): libgfortran opens it with O_TRUNC
!   unknown.<rank>.txt   OPEN(STATUS='UNKNOWN'): no O_TRUNC, but a sequential WRITE makes its record
!                        the last one, so libgfortran cuts the file after it (ftruncate)
! would be emptied again down to their header, and the restore reopens them at their checkpoint
! offsets: the lines before the checkpoint would read back as zeros
! (checkpoint/memory/README.md, "Files truncated again before the restore point"). The rank comes
! from the launcher's environment: MPI is not initialised yet. The pause point is
! tests/apps/pause_point.f90's.
program fortran_early_files
  use mpi
  use yk_app_pause
  implicit none
  integer :: ierr, rank, nprocs, i, length, status
  character(len=32) :: me
  real(8) :: local, total, sum_total

  call get_environment_variable('OMPI_COMM_WORLD_RANK', me, length, status)
  if (status /= 0) call get_environment_variable('PMI_RANK', me, length, status)
  if (status /= 0) stop 3
  open (unit=10, file='replaced.' // trim(me) // '.txt', status='replace', action='write')
  write (10, '(a,a)') 'header of rank ', trim(me)
  open (unit=11, file='unknown.' // trim(me) // '.txt', status='unknown', action='write')
  write (11, '(a,a)') 'header of rank ', trim(me)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  sum_total = 0
  do i = 1, 30
    if (i == 16) call yk_app_pause_point()
    local = real(i * (rank + 3), 8)
    call MPI_Allreduce(local, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    sum_total = sum_total + total
    write (10, '(a,i0,a,f12.1)') 'iteration ', i, ' sum ', sum_total
    write (11, '(a,i0,a,f12.1)') 'iteration ', i, ' total ', total
    if (rank == 0) print '(a,i0,a,f12.1)', 'iteration ', i, ' sum ', sum_total
  end do
  close (10)
  close (11)
  call MPI_Finalize(ierr)

end program fortran_early_files
