! Application test (Fortran, `use mpi`): units connected again for every line with
! POSITION='APPEND' and with ACCESS='APPEND' (a gfortran extension), closed after each line, so
! neither file is open at the checkpoint (tests/apps/README.md). libgfortran's OPEN opens the file
! without O_TRUNC through the interposed open: the open journal records it, and a restart cuts what
! the run that went on past the checkpoint appended (checkpoint/memory/README.md, "Files appended
! to after the checkpoint"). The pause point is tests/apps/pause_point.f90's.
program fortran_append_after_checkpoint
  use mpi
  use yk_app_pause
  implicit none
  integer :: ierr, rank, nprocs, i
  character(len=32) :: me
  real(8) :: local, total, sum_total

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  write (me, '(i0)') rank
  sum_total = 0
  do i = 1, 30
    if (i == 16) call yk_app_pause_point()
    local = real(i * (rank + 3), 8)
    call MPI_Allreduce(local, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    sum_total = sum_total + total
    open (unit=10, file='positioned.' // trim(me) // '.txt', status='unknown', position='append', action='write')
    write (10, '(a,i0,a,f12.1)') 'iteration ', i, ' sum ', sum_total
    close (10)
    open (unit=11, file='accessed.' // trim(me) // '.txt', access='append')
    write (11, '(a,i0,a,f12.1)') 'iteration ', i, ' total ', total
    close (11)
    if (rank == 0) print '(a,i0,a,f12.1)', 'iteration ', i, ' sum ', sum_total
  end do
  call MPI_Finalize(ierr)

end program fortran_append_after_checkpoint
