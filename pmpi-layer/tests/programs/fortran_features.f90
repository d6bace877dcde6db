! Fortran paths of the shim beyond a solver's basics: CHARACTER arguments, LOGICAL arrays,
! MPI_IN_PLACE and MPI_STATUS_IGNORE sentinels, predefined attributes, Waitany indices (1-based),
! derived types and sub-communicators. Output is compared between a native run and the shim.
program fortran_features
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, cart, row, vec, idx, i, flag_count
  integer :: dims(2), coords(2), reqs(2), status(MPI_STATUS_SIZE)
  logical :: periods(2), flag, remain(2)
  integer(kind=MPI_ADDRESS_KIND) :: tag_ub
  character(len=MPI_MAX_OBJECT_NAME) :: name
  integer :: namelen, total, sendv, recvv(2), left, right
  double precision :: a(6), b(6), picked

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)

  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, tag_ub, flag, ierr)
  if (rank == 0) print '(a,l2,l2)', 'tag_ub attribute:', flag, tag_ub >= 32767

  dims = 0
  call MPI_Dims_create(nprocs, 2, dims, ierr)
  periods = (/ .true., .false. /)
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .false., cart, ierr)
  call MPI_Cart_coords(cart, rank, 2, coords, ierr)
  call MPI_Cart_get(cart, 2, dims, periods, coords, ierr)
  remain = (/ .false., .true. /)
  call MPI_Cart_sub(cart, remain, row, ierr)
  call MPI_Comm_set_name(row, 'row communicator', ierr)
  call MPI_Comm_get_name(row, name, namelen, ierr)
  if (rank == 0) print '(a,2i3,2l2,1x,a,i4)', 'cart:', dims, periods, trim(name), namelen

  total = rank + 1
  call MPI_Allreduce(MPI_IN_PLACE, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i6)', 'in-place sum:', total

  call MPI_Type_vector(3, 1, 2, MPI_DOUBLE_PRECISION, vec, ierr)
  call MPI_Type_commit(vec, ierr)
  a = (/ (dble(rank * 10 + i), i = 1, 6) /)
  b = 0
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)
  call MPI_Sendrecv(a, 1, vec, right, 5, b, 1, vec, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_Type_free(vec, ierr)
  picked = b(1) + b(3) + b(5)
  call MPI_Reduce(picked, a(1), 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,f10.1)', 'vector sendrecv sum:', a(1)

  sendv = rank
  call MPI_Irecv(recvv(1), 1, MPI_INTEGER, left, 6, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(sendv, 1, MPI_INTEGER, right, 6, MPI_COMM_WORLD, reqs(2), ierr)
  flag_count = 0
  do i = 1, 2
    call MPI_Waitany(2, reqs, idx, status, ierr)
    if (idx >= 1 .and. idx <= 2) flag_count = flag_count + 1
  end do
  call MPI_Reduce(flag_count, total, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i4,l2)', 'waitany 1-based indices:', total, reqs(1) == MPI_REQUEST_NULL

  call MPI_Comm_free(row, ierr)
  call MPI_Comm_free(cart, ierr)
  if (rank == 0) print '(a,l2)', 'freed:', cart == MPI_COMM_NULL
  call MPI_Finalize(ierr)
end program fortran_features
