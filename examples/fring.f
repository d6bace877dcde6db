C     fring: Fortran 77-style ring with mpif.h.
C
C     Covers the mpif.h binding: mpi_send/mpi_recv with a status
C     array and with MPI_STATUS_IGNORE, mpi_get_count, mpi_sendrecv
C     (one rank), mpi_bcast, mpi_reduce and mpi_allreduce.
C     Rank 0 prints the token after every lap and a final line.
C
C     usage: fring [laps]
      program fring
      implicit none
      include 'mpif.h'
      integer ierr, rank, nprocs, next, prev, lap, laps, token, out
      integer icount, isum, expect
      integer status(MPI_STATUS_SIZE)
      double precision dlocal, dsum
      character*16 arg

      call mpi_init(ierr)
      call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
      call mpi_comm_size(MPI_COMM_WORLD, nprocs, ierr)
      laps = 5
      if (rank .eq. 0 .and. command_argument_count() .ge. 1) then
         call get_command_argument(1, arg)
         read (arg, *) laps
      endif
      call mpi_bcast(laps, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
      next = mod(rank + 1, nprocs)
      prev = mod(rank + nprocs - 1, nprocs)

C     Each lap adds rank+1 on every rank. Send/recv needs a real
C     neighbour, so a single rank does a sendrecv with itself.
      token = 0
      do lap = 1, laps
         if (nprocs .eq. 1) then
            out = token + 1
            call mpi_sendrecv(out, 1, MPI_INTEGER, 0, 5, token, 1,
     &           MPI_INTEGER, 0, 5, MPI_COMM_WORLD, status, ierr)
         else if (rank .eq. 0) then
            token = token + 1
            call mpi_send(token, 1, MPI_INTEGER, next, 5,
     &           MPI_COMM_WORLD, ierr)
            call mpi_recv(token, 1, MPI_INTEGER, prev, 5,
     &           MPI_COMM_WORLD, status, ierr)
         else
            call mpi_recv(token, 1, MPI_INTEGER, prev, 5,
     &           MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
            token = token + rank + 1
            call mpi_send(token, 1, MPI_INTEGER, next, 5,
     &           MPI_COMM_WORLD, ierr)
         endif
         if (rank .eq. 0) then
C           The status array must name the peer and hold one integer.
            call mpi_get_count(status, MPI_INTEGER, icount, ierr)
            if (status(MPI_SOURCE) .ne. prev .or.
     &          status(MPI_TAG) .ne. 5 .or. icount .ne. 1) then
               write (0, *) 'fring: bad status', status(MPI_SOURCE),
     &              status(MPI_TAG), icount
               call mpi_abort(MPI_COMM_WORLD, 2, ierr)
            endif
            write (*, '(a,i0,a,i0)') 'lap ', lap, ' token ', token
         endif
      enddo

      call mpi_reduce(rank + 1, isum, 1, MPI_INTEGER, MPI_SUM, 0,
     &     MPI_COMM_WORLD, ierr)
      dlocal = 1.0d0 / dble(rank + 1)
C     Doubles go through a different routine: without interfaces,
C     gfortran rejects one routine called with two buffer types.
      call mpi_allreduce(dlocal, dsum, 1, MPI_DOUBLE_PRECISION,
     &     MPI_SUM, MPI_COMM_WORLD, ierr)
      expect = laps * nprocs * (nprocs + 1) / 2
      if (rank .eq. 0) then
         write (*, '(a,i0,a,i0)') 'ranks sum ', isum, ' expected ',
     &        nprocs * (nprocs + 1) / 2
         write (*, '(a,es22.15e3)') 'harmonic ', dsum
         write (*, '(a,i0,a,i0)') 'final ', token, ' expected ', expect
      endif
      call mpi_finalize(ierr)
      if (rank .eq. 0 .and. token .ne. expect) stop 3
      end
