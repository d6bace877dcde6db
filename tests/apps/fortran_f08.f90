! Application test (Fortran, `use mpi_f08`): the Fortran 2008 bindings go through the shim on
! both MPIs (pmpi-layer/README.md, "Fortran"), so their calls are part of the cut, the drain and
! the object records. Every rank opens out.<rank>.txt after MPI_Init and writes a line per
! iteration: a ring exchange with MPI_Isend/MPI_Irecv and MPI_Waitall, a blocking MPI_Sendrecv
! of a strided derived datatype and an MPI_Allreduce on a communicator from MPI_Comm_split (key
! reversed), and an MPI_Bcast on the world. At the pause point (tests/apps/README.md) a message
! is in flight (an MPI_Isend whose receive is posted only after it) and a receive is posted
! (MPI_Irecv) whose message is sent only after it; both requests are completed after it with
! MPI_Waitall, the statuses printed. Only rank 0 prints to stdout.
! Usage: fortran_f08 [ITERATIONS]
program fortran_f08
  use mpi_f08
  implicit none
  integer :: rank, nprocs, iterations, i, left, right, sub_rank, sub_size, count
  integer :: token, next_token, early, late, answer, ring_in, ring_out, mine, summed, root_value, k
  character(len=32) :: arg, me
  double precision :: a(6), b(6)
  type(MPI_Comm) :: sub
  type(MPI_Datatype) :: stride2
  type(MPI_Request) :: ring(2), pending(2)
  type(MPI_Status) :: st, sts(2)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  iterations = 12
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) iterations
  end if
  write (me, '(i0)') rank
  left = mod(rank + nprocs - 1, nprocs)
  right = mod(rank + 1, nprocs)

  call MPI_Comm_split(MPI_COMM_WORLD, 0, nprocs - rank, sub)
  call MPI_Comm_rank(sub, sub_rank)
  call MPI_Comm_size(sub, sub_size)
  call MPI_Type_vector(3, 1, 2, MPI_DOUBLE_PRECISION, stride2)
  call MPI_Type_commit(stride2)

  open (unit=10, file='out.' // trim(me) // '.txt', status='replace', action='write')
  write (10, '(a,i0,a,i0,a,i0)') 'rank ', rank, ' sub rank ', sub_rank, ' of ', sub_size

  do i = 1, iterations
    if (i == iterations / 2) then
      ! In flight at the checkpoint: sent now, received after the pause point.
      token = 1000 * (rank + 1) + i
      call MPI_Isend(token, 1, MPI_INTEGER, right, 77, MPI_COMM_WORLD, pending(1))
      ! Posted at the checkpoint: its message is sent only after the pause point.
      call MPI_Irecv(late, 1, MPI_INTEGER, left, 78, MPI_COMM_WORLD, pending(2))
      call pause_point()
      next_token = token + 1
      call MPI_Send(next_token, 1, MPI_INTEGER, right, 78, MPI_COMM_WORLD)
      call MPI_Recv(early, 1, MPI_INTEGER, MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, st)
      call MPI_Get_count(st, MPI_INTEGER, count)
      call MPI_Waitall(2, pending, sts)
      write (10, '(a,i0,a,i0,a,i0,a,i0,a,i0,a,i0)') 'in flight ', early, ' from ', st%MPI_SOURCE, ' tag ', &
        st%MPI_TAG, ' count ', count, ' late ', late, ' from ', sts(2)%MPI_SOURCE
      if (rank == 0) print '(a,i0,a,i0)', 'in flight ', early, ' late ', late
    end if

    ring_out = rank * 100 + i
    call MPI_Irecv(ring_in, 1, MPI_INTEGER, left, 1, MPI_COMM_WORLD, ring(2))
    call MPI_Isend(ring_out, 1, MPI_INTEGER, right, 1, MPI_COMM_WORLD, ring(1))
    call MPI_Waitall(2, ring, MPI_STATUSES_IGNORE)

    a = [(dble(10 * rank + i + k), k = 1, 6)]
    b = 0
    call MPI_Sendrecv(a, 1, stride2, right, 2, b, 1, stride2, left, 2, MPI_COMM_WORLD, st)

    mine = ring_in + sub_rank
    call MPI_Allreduce(mine, summed, 1, MPI_INTEGER, MPI_SUM, sub)
    root_value = 0
    if (rank == 0) root_value = 7 * i
    call MPI_Bcast(root_value, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
    answer = summed + root_value

    write (10, '(a,i0,a,i0,a,6f6.1,a,i0)') 'iteration ', i, ' ring ', ring_in, ' b', b, ' answer ', answer
    if (rank == 0) print '(a,i0,a,i0,a,f6.1)', 'iteration ', i, ' answer ', answer, ' b(5) ', b(5)
  end do

  call MPI_Type_free(stride2)
  call MPI_Comm_free(sub)
  close (10)
  if (rank == 0) print '(a)', 'done'
  call MPI_Finalize()

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
      call MPI_Allreduce(here, all, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD)
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

end program fortran_f08
