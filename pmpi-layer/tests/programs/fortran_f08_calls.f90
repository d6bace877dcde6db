! `use mpi_f08` through the shim: handle types, LOGICAL and CHARACTER arguments, statuses and
! MPI_STATUS(ES)_IGNORE, MPI_IN_PLACE, a predefined attribute, a user op, a split communicator and a derived datatype. Output is compared between a native run and
! the shim, and the shim's stats must show the calls (run_shim_case.sh, mode f08): a call that
! bypassed the shim would not be counted. (No MPI_Waitany: MPICH 4.0's f08 binding returns a
! 0-based index natively.)
module f08_user_op
  use mpi_f08
  implicit none
contains
  ! A module procedure, not an internal one: passing an internal procedure needs an executable stack.
  subroutine larger_magnitude(invec, inoutvec, len, datatype)
    use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: x(:), y(:)
    integer :: k
    if (datatype /= MPI_INTEGER) return
    call c_f_pointer(invec, x, [len])
    call c_f_pointer(inoutvec, y, [len])
    do k = 1, len
      if (abs(x(k)) > abs(y(k))) y(k) = x(k)
    end do
  end subroutine larger_magnitude
end module f08_user_op

program fortran_f08_calls
  use mpi_f08
  use f08_user_op
  implicit none
  integer :: rank, nprocs, left, right, namelen, i, sendv, recvv, total
  integer(kind=MPI_ADDRESS_KIND) :: tag_ub
  logical :: flag, initialized
  character(len=MPI_MAX_OBJECT_NAME) :: name
  double precision :: a(6), b(6)
  type(MPI_Comm) :: sub
  type(MPI_Datatype) :: pair
  type(MPI_Op) :: maxabs
  type(MPI_Request) :: reqs(2)
  type(MPI_Status) :: st

  call MPI_Init()
  call MPI_Initialized(initialized)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  left = mod(rank + nprocs - 1, nprocs)
  right = mod(rank + 1, nprocs)
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, tag_ub, flag)
  if (rank == 0) print '(a,l2,l2,l2)', 'initialized, tag_ub attribute:', initialized, flag, tag_ub >= 32767

  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), -rank, sub)
  call MPI_Comm_set_name(sub, 'parity communicator')
  call MPI_Comm_get_name(sub, name, namelen)
  if (rank == 0) print '(a,a,i3)', 'name: ', name(1:namelen), namelen

  ! Ring with non-blocking calls: the receive waited for, the send tested until done.
  sendv = 10 + rank
  call MPI_Irecv(recvv, 1, MPI_INTEGER, left, 5, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(sendv, 1, MPI_INTEGER, right, 5, MPI_COMM_WORLD, reqs(2))
  call MPI_Wait(reqs(1), st)
  print '(a,i0,a,i0,a,i0,a,i0)', 'rank ', rank, ' got ', recvv, ' from ', st%MPI_SOURCE, ' tag ', st%MPI_TAG
  flag = .false.
  do while (.not. flag)
    call MPI_Test(reqs(2), flag, MPI_STATUS_IGNORE)
  end do
  call MPI_Testall(2, reqs, flag, MPI_STATUSES_IGNORE)
  if (rank == 0) print '(a,l2,l2)', 'all done, null:', flag, reqs(1) == MPI_REQUEST_NULL

  ! A probe before the receive (LOGICAL out of MPI_Iprobe once the message is there).
  call MPI_Send(sendv, 1, MPI_INTEGER, right, 6, MPI_COMM_WORLD)
  call MPI_Probe(left, 6, MPI_COMM_WORLD, st)
  call MPI_Iprobe(left, 6, MPI_COMM_WORLD, flag, MPI_STATUS_IGNORE)
  call MPI_Recv(recvv, 1, MPI_INTEGER, st%MPI_SOURCE, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  if (rank == 0) print '(a,l2,i4)', 'probed:', flag, recvv

  ! A derived datatype: every other element.
  call MPI_Type_vector(3, 1, 2, MPI_DOUBLE_PRECISION, pair)
  call MPI_Type_commit(pair)
  a = [(dble(rank * 10 + i), i = 1, 6)]
  b = -1
  call MPI_Sendrecv(a, 1, pair, right, 7, b, 1, pair, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  if (rank == 0) print '(a,6f6.1)', 'strided:', b

  ! Collectives: MPI_IN_PLACE on the split communicator, a user op on the world, a barrier.
  total = rank + 1
  call MPI_Allreduce(MPI_IN_PLACE, total, 1, MPI_INTEGER, MPI_SUM, sub)
  print '(a,i0,a,i0)', 'rank ', rank, ' parity sum ', total
  call MPI_Op_create(larger_magnitude, .true., maxabs)
  sendv = (rank + 1) * (-1)**rank
  call MPI_Allreduce(sendv, recvv, 1, MPI_INTEGER, maxabs, MPI_COMM_WORLD)
  if (rank == 0) print '(a,i0)', 'largest magnitude: ', recvv
  call MPI_Barrier(MPI_COMM_WORLD)

  call MPI_Op_free(maxabs)
  call MPI_Type_free(pair)
  call MPI_Comm_free(sub)
  if (rank == 0) print '(a,l2)', 'freed:', sub == MPI_COMM_NULL
  call MPI_Finalize()

end program fortran_f08_calls
