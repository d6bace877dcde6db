! The pause point of tests/apps/pause_point.h for Fortran programs that `use mpi`: with
! YK_APP_PAUSE set, rank 0 creates $YK_APP_PAUSE.reached and every rank loops (an MPI_Allreduce of
! "does the file exist on rank 0", then 10 ms of sleep) until that file exists. Nothing printed
! depends on how many times the loop ran. Unit 99 is the marker's, closed again at once.
module yk_app_pause
  use mpi
  implicit none
  private
  public :: yk_app_pause_point, yk_app_pause_at

contains

  subroutine yk_app_pause_point()
    character(len=4096) :: go
    integer :: length, status
    call get_environment_variable('YK_APP_PAUSE', go, length, status)
    if (status /= 0 .or. length == 0) return
    call yk_app_pause_at(go(1:length))
  end subroutine yk_app_pause_point

  ! The same wait on the file `go` (programs with several pause points name one file per step).
  subroutine yk_app_pause_at(go)
    character(len=*), intent(in) :: go
    integer :: rank, ierr, here, all
    logical :: exists
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    if (rank == 0) then
      open (unit=99, file=go // '.reached', status='replace')
      close (99)
    end if
    do
      here = 0
      if (rank == 0) then
        inquire (file=go, exist=exists)
        if (exists) here = 1
      end if
      call MPI_Allreduce(here, all, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
      if (all /= 0) exit
      call sleep_ms(10)
    end do
  end subroutine yk_app_pause_at

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

end module yk_app_pause
