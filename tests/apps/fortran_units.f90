! Application test (Fortran, `use mpi`): the application's units and RANDOM_NUMBER across a
! restart (issue 14). Every rank opens out.<rank>.txt on unit 10 after MPI_Init and writes a line
! per iteration, keeps log.<rank>.txt open with POSITION='APPEND', writes rw.<rank>.txt whole, rewinds
! it and reads it back a line per iteration, writes a namelist per iteration to a NEWUNIT unit and
! reads a namelist group per iteration from params.<rank>.nml; RANDOM_NUMBER after
! RANDOM_SEED(PUT=) feeds an MPI_Allreduce. Halfway through, the pause point
! (tests/apps/app_restart.sh): with YK_APP_PAUSE set, rank 0 creates $YK_APP_PAUSE.reached and all
! ranks loop (an MPI_Allreduce of "does $YK_APP_PAUSE exist on rank 0", 10 ms sleep) until it
! exists; nothing printed depends on how long.
! Usage: fortran_units [ITERATIONS]
program fortran_units
  use mpi
  use yk_app_pause
  implicit none
  integer :: ierr, rank, nprocs, iterations, i, k, u_nml, seed_size
  integer, allocatable :: seed(:)
  character(len=32) :: arg, me
  character(len=80) :: line
  character(len=12) :: label
  real(8) :: r(2), local, total
  integer :: step
  namelist /state/ step, total, label
  namelist /params/ k, label

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  iterations = 20
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) iterations
  end if
  write (me, '(i0)') rank

  open (unit=10, file='out.' // trim(me) // '.txt', status='replace', action='write')
  open (unit=11, file='log.' // trim(me) // '.txt', status='replace')
  write (11, '(a)') 'log of rank ' // trim(me)
  close (11)
  open (unit=11, file='log.' // trim(me) // '.txt', status='old', position='append')
  open (unit=12, file='rw.' // trim(me) // '.txt', status='replace')
  do i = 1, iterations
    write (12, '(a,i0,a,i0)') 'rank ' // trim(me) // ' line ', i, ' cube ', i * i * i
  end do
  rewind (12)
  open (unit=13, file='params.' // trim(me) // '.nml', status='replace')
  do i = 1, iterations
    write (13, '(a,i0,a,i0,a)') '&params k=', 3 * i + rank, ', label="r', rank, '" /'
  end do
  rewind (13)
  open (newunit=u_nml, file='state.' // trim(me) // '.nml', status='replace', delim='quote')

  call random_seed(size=seed_size)
  allocate (seed(seed_size))
  seed = [(7919 * i + 101 * rank, i = 1, seed_size)]
  call random_seed(put=seed)

  total = 0
  do i = 1, iterations
    if (i == iterations / 2) call yk_app_pause_point()
    call random_number(r)
    read (12, '(a)') line
    read (13, nml=params)
    local = sum(r) + k
    call MPI_Allreduce(local, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    step = i
    write (10, '(a,i0,2f12.8,f16.8)') 'iteration ', i, r, total
    write (11, '(a,i0,1x,a)') 'log ', i, trim(line)
    write (u_nml, nml=state)
    if (rank == 0) print '(a,i0,a,f16.8,a,i0)', 'iteration ', i, ' total ', total, ' newunit ', u_nml
  end do
  rewind (u_nml)
  read (u_nml, nml=state)
  if (rank == 0) print '(a,i0,1x,a)', 'namelist back: step ', step, trim(label)
  call MPI_Finalize(ierr)

end program fortran_units
