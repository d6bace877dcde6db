! Application test (Fortran, `use mpi`): units updated in place by a run that then failed
! (tests/apps/README.md). The run that goes on past the checkpoint changes records *inside* what the
! files held at the checkpoint, and the restarted run reads them back: unless the restart puts those
! bytes back (checkpoint/memory/README.md, "Files overwritten after the checkpoint") it adds its
! iterations to the failed run's and the totals come out larger, with exit 0. Per rank, both units
! kept open across the pause point (tests/apps/pause_point.f90's):
!   records.<rank>.bin  direct access, 6 records: READ(REC=), add, WRITE(REC=) back; right after
!                       the pause point (before the unit's next transfer) INQUIRE(NEXTREC=) is
!                       printed: a restarted unit must answer as the checkpointed one would
!   running.<rank>.txt  sequential: REWIND, READ the running total, REWIND, WRITE the new one
!                       (libgfortran cuts the file after that record with ftruncate)
program fortran_overwrites
  use mpi
  use yk_app_pause
  implicit none
  integer :: ierr, rank, i, k, records, running
  integer(8) :: value, total, all, next
  character(len=32) :: me

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  write (me, '(i0)') rank
  open (newunit=records, file='records.' // trim(me) // '.bin', access='direct', form='unformatted', &
        recl=8, status='replace')
  do k = 1, 6
    write (records, rec=k) 0_8
  end do
  open (newunit=running, file='running.' // trim(me) // '.txt', status='replace')
  write (running, '(a,i0)') 'total ', 0
  do i = 1, 30
    if (i == 16) then
      call yk_app_pause_point()
      inquire (records, nextrec=next)
      if (rank == 0) print '(a,i0)', 'next record ', next
    end if
    k = mod(i, 6) + 1
    read (records, rec=k) value
    value = value + int(i * (rank + 1), 8)
    write (records, rec=k) value
    rewind (running)
    read (running, '(6x,i20)') total
    total = total + int(i * (rank + 2), 8)
    rewind (running)
    write (running, '(a,i0)') 'total ', total
    call MPI_Allreduce(total, all, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (rank == 0) print '(a,i0,a,i0,a,i0,a,i0)', 'iteration ', i, ' record ', value, ' total ', total, &
                         ' all ', all
  end do
  close (records)
  close (running)
  call MPI_Finalize(ierr)
end program fortran_overwrites
