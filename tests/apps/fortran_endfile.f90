! Application test (Fortran, `use mpi`): units after their end of file at the checkpoint. A unit
! that hit the end of file on a READ, or ran ENDFILE, is after its endfile record: BACKSPACE then
! goes back to the end of the data, and a WRITE appends. A restarted unit positioned at the end
! without that state would BACKSPACE over the last record and overwrite it (seen before this test).
! Every rank: log.<rank>.txt on unit 11 is written, reopened and read to its end (IOSTAT); a
! NEWUNIT unit on out.<rank>.txt gets three records and ENDFILE. The pause point comes then; after
! it, both units BACKSPACE and append a record, and rank 0 prints every record of both files.
! Usage: fortran_endfile
program fortran_endfile
  use mpi
  use yk_app_pause
  implicit none
  integer :: ierr, rank, i, ios, out, records
  character(len=32) :: me
  character(len=40) :: line

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  write (me, '(I0)') rank
  open (unit=11, file='log.' // trim(me) // '.txt', status='replace')
  do i = 1, 5
    write (11, '(A,I0)') 'record ', i
  end do
  close (11)
  open (unit=11, file='log.' // trim(me) // '.txt', status='old')
  records = 0
  do
    read (11, '(A)', iostat=ios) line
    if (ios /= 0) exit
    records = records + 1
  end do
  open (newunit=out, file='out.' // trim(me) // '.txt', status='replace')
  do i = 1, 3
    write (out, '(A,I0)') 'line ', i * (rank + 1)
  end do
  endfile (out)

  call yk_app_pause_point()

  backspace (11)
  write (11, '(A,I0,A)') 'appended after ', records, ' records'
  backspace (out)
  write (out, '(A)') 'appended after ENDFILE'
  rewind (11)
  rewind (out)
  if (rank == 0) then
    do
      read (11, '(A)', iostat=ios) line
      if (ios /= 0) exit
      print '(A,A)', 'log: ', trim(line)
    end do
    do
      read (out, '(A)', iostat=ios) line
      if (ios /= 0) exit
      print '(A,A)', 'out: ', trim(line)
    end do
  end if
  close (11)
  close (out)
  call MPI_Finalize(ierr)
end program fortran_endfile
