! cg: conjugate gradients on a distributed 1D shifted Laplacian, A = tridiag(-1, 2.5, -1).
!
! Fortran 90 with `use mpi`. Exercises the Fortran bindings a shim must catch: MPI_Bcast of the
! parameters, a halo exchange with MPI_Isend/MPI_Irecv/MPI_Waitall (MPI_PROC_NULL at the ends,
! a status array), MPI_Allreduce of dot products, MPI_Reduce, MPI_Wtime.
! Rank 0 prints the residual norm per iteration and a final line; deterministic for a given
! rank count.
!
! usage: cg [n_global [max_iters]]
program cg
  use mpi
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  real(dp), parameter :: diag = 2.5_dp, tol = 1.0e-12_dp
  integer :: ierr, rank, nprocs, n, maxit, nl, start, left, right, it, i, iters_done
  integer :: params(2)
  real(dp), allocatable :: x(:), r(:), p(:), q(:), b(:)
  real(dp) :: rho, rho_old, alpha, beta, pq, bnorm, xsum_local, xsum, t0, elapsed
  character(len=32) :: arg

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)

  ! Rank 0 owns the command line; the others learn the parameters by broadcast.
  params = (/ 2000, 80 /)
  if (rank == 0) then
    do i = 1, min(2, command_argument_count())
      call get_command_argument(i, arg)
      read (arg, *) params(i)
    end do
  end if
  call MPI_Bcast(params, 2, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  n = params(1)
  maxit = params(2)
  if (n < nprocs) then
    if (rank == 0) write (0, '(a)') 'cg: need n >= number of ranks'
    call MPI_Finalize(ierr)
    stop 1
  end if
  t0 = MPI_Wtime()

  ! Block distribution; start is the 0-based global index of the first local row.
  nl = n / nprocs
  if (rank < mod(n, nprocs)) nl = nl + 1
  start = rank * (n / nprocs) + min(rank, mod(n, nprocs))
  left = rank - 1
  right = rank + 1
  if (rank == 0) left = MPI_PROC_NULL
  if (rank == nprocs - 1) right = MPI_PROC_NULL

  ! p carries one halo cell on each side; they stay 0 at the global ends (MPI_PROC_NULL).
  allocate (x(nl), r(nl), q(nl), b(nl), p(0:nl + 1))
  do i = 1, nl
    b(i) = 1.0_dp + real(mod(start + i, 7), dp)
  end do
  x = 0.0_dp
  r = b
  p = 0.0_dp
  p(1:nl) = r
  rho = global_dot(r, r)
  bnorm = sqrt(rho)

  iters_done = 0
  do it = 1, maxit
    call matvec(p, q)
    pq = global_dot(p(1:nl), q)
    alpha = rho / pq
    x = x + alpha * p(1:nl)
    r = r - alpha * q
    rho_old = rho
    rho = global_dot(r, r)
    iters_done = it
    if (rank == 0) write (*, '(a,i0,a,a)') 'iter ', it, ' residual ', fmt(sqrt(rho))
    if (sqrt(rho) <= tol * bnorm) exit
    beta = rho / rho_old
    p(1:nl) = r + beta * p(1:nl)
  end do

  ! Checksum of the solution: position-weighted sum, reduced to rank 0.
  xsum_local = 0.0_dp
  do i = 1, nl
    xsum_local = xsum_local + real(start + i, dp) * x(i)
  end do
  call MPI_Reduce(xsum_local, xsum, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  elapsed = MPI_Wtime() - t0
  if (rank == 0) then
    write (*, '(a,i0,a,a)') 'iterations ', iters_done, ' residual ', fmt(sqrt(rho))
    write (*, '(a,a)') 'final ', fmt(xsum)
  end if
  deallocate (x, r, q, b, p)
  call MPI_Finalize(ierr)

contains

  ! Sum of a*b over all ranks.
  real(dp) function global_dot(a, c)
    real(dp), intent(in) :: a(:), c(:)
    real(dp) :: local
    integer :: e
    local = sum(a * c)
    call MPI_Allreduce(local, global_dot, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, e)
  end function global_dot

  ! q = A v after refreshing v's halo cells from the neighbours.
  subroutine matvec(v, w)
    real(dp), intent(inout) :: v(0:)
    real(dp), intent(out) :: w(:)
    integer :: reqs(4), stats(MPI_STATUS_SIZE, 4), e, k
    call MPI_Irecv(v(0), 1, MPI_DOUBLE_PRECISION, left, 1, MPI_COMM_WORLD, reqs(1), e)
    call MPI_Irecv(v(nl + 1), 1, MPI_DOUBLE_PRECISION, right, 2, MPI_COMM_WORLD, reqs(2), e)
    call MPI_Isend(v(nl), 1, MPI_DOUBLE_PRECISION, right, 1, MPI_COMM_WORLD, reqs(3), e)
    call MPI_Isend(v(1), 1, MPI_DOUBLE_PRECISION, left, 2, MPI_COMM_WORLD, reqs(4), e)
    call MPI_Waitall(4, reqs, stats, e)
    ! A receive from a real neighbour must report that neighbour as its source.
    if (left /= MPI_PROC_NULL .and. stats(MPI_SOURCE, 1) /= left) then
      write (0, '(a,i0)') 'cg: bad halo source ', stats(MPI_SOURCE, 1)
      call MPI_Abort(MPI_COMM_WORLD, 2, e)
    end if
    do k = 1, nl
      w(k) = diag * v(k) - v(k - 1) - v(k + 1)
    end do
  end subroutine matvec

  ! %.15e-like text without Fortran's leading blank.
  function fmt(v) result(s)
    real(dp), intent(in) :: v
    character(len=:), allocatable :: s
    character(len=32) :: buf
    write (buf, '(es22.15e3)') v
    s = trim(adjustl(buf))
  end function fmt

end program cg
