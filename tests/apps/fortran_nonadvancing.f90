! Application test (Fortran, `use mpi`): a checkpoint in the middle of non-advancing records.
! Every rank writes nonadv.<rank>.txt on unit 10, each record in three non-advancing pieces placed
! with T and X edit descriptors (the position of the next item lives in libgfortran's unit), and
! reads input.<rank>.txt (written and closed first) on unit 11 a field at a time with
! ADVANCE='NO', echoing what it read to unit 10. The pause point (tests/apps/pause_point.f90) is
! between the first and the second piece of record 5 and between the first and second field of
! input record 5: the restarted rank must go on in the same column of both records.
! Usage: fortran_nonadvancing
program fortran_nonadvancing
  use mpi
  use yk_app_pause
  implicit none
  integer :: ierr, rank, i, value
  character(len=32) :: me
  character(len=6) :: word

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  write (me, '(I0)') rank
  open (unit=11, file='input.' // trim(me) // '.txt', status='replace')
  do i = 1, 10
    write (11, '(A6,I6)') 'field', i * 11 + rank
  end do
  close (11)
  open (unit=11, file='input.' // trim(me) // '.txt', status='old', action='read')
  open (unit=10, file='nonadv.' // trim(me) // '.txt', status='replace')
  do i = 1, 10
    write (10, '(A,I0)', advance='no') 'item ', i
    read (11, '(A6)', advance='no') word
    if (i == 5) call yk_app_pause_point()
    write (10, '(T20,A,I0)', advance='no') 'tab ', i * 7
    read (11, '(I6)') value
    write (10, '(3X,A,A,I0)') trim(word), ' ', value
  end do
  close (10)
  close (11)
  if (rank == 0) print '(A)', 'done'
  call MPI_Finalize(ierr)
end program fortran_nonadvancing
