! The Fortran unit table filled past its limit after a first checkpoint (table_limits.sh, mode
! fortran_units): 65 units connected with OPEN (64 are carried), after the pause point
! $YK_APP_PAUSE-1 and before $YK_APP_PAUSE-2. Rank 0 writes the refusal lines it expects to
! expected-refusals and prints only after the first pause point. The harness's other arguments
! (mode, library directory) are ignored.
program table_limits_units
  use mpi
  use yk_app_pause
  implicit none
  integer, parameter :: units = 65
  integer :: ierr, rank, i, u(units), local, total
  character(len=64) :: name
  character(len=2048) :: cwd

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call pause_step('1')
  do i = 1, units
    write (name, '(a,i0,a,i0)') 'unit-', rank, '-', i
    open (newunit=u(i), file=trim(name), status='replace', action='write')
    write (u(i), '(a,i0)') 'line ', i
  end do
  if (rank == 0) then
    open (newunit=i, file='expected-refusals', status='replace', action='write')
    write (i, '(a)') 'more than 64 Fortran units were connected with OPEN, which is not carried'
    ! The unit past the table is not recorded, so it also counts as connected without OPEN.
    call getcwd(cwd)
    write (name, '(a,i0,a,i0)') 'unit-', rank, '-', units
    write (i, '(a,i0,a,a)') 'unit ', u(units), ' was connected without OPEN, which is not carried: ', &
      trim(cwd) // '/' // trim(name)
    close (i)
    print '(a,i0,a)', 'fortran_units: ', units, ' units open'
  end if
  call pause_step('2')
  local = rank + 1
  call MPI_Allreduce(local, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0)', 'done: ', total
  do i = 1, units
    close (u(i))
  end do
  call MPI_Finalize(ierr)

contains

  ! tests/apps/pause_point.f90's wait on the file $YK_APP_PAUSE-<step>.
  subroutine pause_step(step)
    character(len=*), intent(in) :: step
    character(len=4096) :: base
    integer :: length, status
    call get_environment_variable('YK_APP_PAUSE', base, length, status)
    if (status /= 0 .or. length == 0) return
    call yk_app_pause_at(base(1:length) // '-' // step)
  end subroutine pause_step

end program table_limits_units
