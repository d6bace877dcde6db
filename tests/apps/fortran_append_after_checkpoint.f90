! Application test (Fortran, `use mpi`): units connected again for every line with
! POSITION='APPEND' and with ACCESS='APPEND' (a gfortran extension), closed after each line, so
! neither file is open at the checkpoint (tests/apps/README.md). libgfortran's OPEN opens the file
! without O_TRUNC through the interposed open: the open journal records it, and a restart cuts what
! the run that went on past the checkpoint appended (checkpoint/memory/README.md, "Files appended
! to after the checkpoint"). The pause point is fortran_units.f90's.
program fortran_append_after_checkpoint
  use mpi
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
    if (i == 16) call pause_point()
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

contains

  subroutine pause_point()
    character(len=4096) :: pause
    integer :: length, status, here, all
    logical :: exists
    call get_environment_variable('YK_APP_PAUSE', pause, length, status)
    if (status /= 0 .or. length == 0) return
    if (rank == 0) then
      open (unit=99, file=pause(1:length) // '.reached', status='replace')
      close (99)
    end if
    do
      here = 0
      if (rank == 0) then
        inquire (file=pause(1:length), exist=exists)
        if (exists) here = 1
      end if
      call MPI_Allreduce(here, all, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
      if (all /= 0) exit
      call sleep_ms(10)
    end do
  end subroutine pause_point

  subroutine sleep_ms(ms)
    use iso_c_binding, only: c_int
    integer, intent(in) :: ms
    interface
      integer(c_int) function usleep(us) bind(C, name="usleep")
        import :: c_int
        integer(c_int), value :: us
      end function usleep
    end interface
    integer(c_int) :: rc
    rc = usleep(int(ms * 1000, c_int))
  end subroutine sleep_ms

end program fortran_append_after_checkpoint
