! Application test (Fortran, `use mpi`): a unit and an allocatable array that the application's own
! reduction creates while MPI_ALLREDUCE calls it back (tests/apps/README.md, c_callbacks.c for C).
! On its first call the operation OPENs ops.<rank>.txt and allocates its history; on every call it
! writes a line to the unit and appends the result to the history. Before the pause point and
! after it; at the end the history's length and sum are printed and the unit closed.
module yk_fortran_callbacks
  implicit none
  integer, save :: op_unit = 0, history_len = 0
  logical, save :: first_call = .true.
  real(8), allocatable, save :: history(:)
  integer, save :: rank = 0
contains
  subroutine summing_op(invec, inoutvec, length, datatype)
    integer :: length, datatype
    real(8) :: invec(length), inoutvec(length)
    character(len=32) :: name
    integer :: i
    if (first_call) then
      first_call = .false.
      write (name, '(a,i0,a)') 'ops.', rank, '.txt'
      open (newunit=op_unit, file=trim(name), status='replace', action='write')
      allocate (history(512))
    end if
    do i = 1, length
      inoutvec(i) = inoutvec(i) + invec(i)
      if (history_len < size(history)) then
        history_len = history_len + 1
        history(history_len) = inoutvec(i)
      end if
    end do
    write (op_unit, '(a,i0,a,es24.16)') 'call with ', length, ' values, first ', inoutvec(1)
  end subroutine summing_op
end module yk_fortran_callbacks

program fortran_callbacks
  use mpi
  use yk_app_pause
  use yk_fortran_callbacks
  implicit none
  integer :: ierr, op, iteration
  real(8) :: mine(2), total(2), running

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Op_create(summing_op, .true., op, ierr)
  running = 0
  do iteration = 0, 29
    if (iteration == 15) call yk_app_pause_point()
    mine = [rank + iteration*0.125d0, 1d0/(iteration + 1)]
    call MPI_Allreduce(mine, total, 2, MPI_DOUBLE_PRECISION, op, MPI_COMM_WORLD, ierr)
    running = running + total(1)*total(2)
    if (rank == 0) write (*, '(a,i0,a,es24.16)') 'iteration ', iteration, ' total ', running
  end do
  if (.not. allocated(history)) allocate (history(0))
  if (rank == 0) write (*, '(a,i0,a,es24.16)') 'reduction history: ', history_len, ' entries, sum ', &
    sum(history(1:history_len))
  if (.not. first_call) close (op_unit)
  call MPI_Op_free(op, ierr)
  call MPI_Finalize(ierr)
end program fortran_callbacks
