! Memory test program (Fortran): state that lives in libgfortran. Units connected with OPEN in
! every shape a code uses them (a sequential formatted file written each iteration, a log opened
! with POSITION='APPEND', a file written, rewound and read back line by line, NEWUNIT numbers with
! a gap, namelist output and input, a stream unit written with ASYNCHRONOUS='YES'), and
! RANDOM_NUMBER after RANDOM_SEED(PUT=). Every file is
! written into DIR; one line per iteration on stdout, then the call boundary (the preloaded test
! driver, through a C stub). The first boundary comes before the loop, as MPI_Init would: what
! runs before it (one line on stdout, unit 21 opened in append mode) runs again when the restore
! happens there.
! Usage: units ITERATIONS DIR [scratch|implicit]  (the last: also connect a unit that cannot be
! carried, to see the checkpoint refused)
program units
  implicit none
  interface
    subroutine boundary() bind(C, name="yk_memtest_boundary_f")
    end subroutine boundary
  end interface
  integer :: iterations, i, k, u_gap, u_data, u_nml, u_late, ios, fds(6)
  integer :: seed_size
  integer, allocatable :: seed(:)
  character(len=4096) :: dir
  character(len=32) :: arg, extra
  character(len=80) :: line
  real(8) :: r(3), x
  integer :: step, values(4)
  character(len=12) :: label
  character(len=8) :: async_mode
  namelist /state/ step, x, values, label
  namelist /params/ k, label

  call get_command_argument(1, arg)
  read (arg, *) iterations
  call get_command_argument(2, dir)
  call get_command_argument(3, extra)

  print '(a)', 'units: start'
  open (unit=21, file=path('early.txt'), position='append', action='write')
  write (21, '(a)') 'early'
  call boundary()

  open (unit=10, file=path('out.txt'), status='replace', action='write')
  open (unit=11, file=path('log.txt'), status='replace')
  write (11, '(a)') 'log header'
  close (11)
  open (unit=11, file=path('log.txt'), status='old', position='append', delim='quote')
  ! Written whole, rewound, then read back one line per iteration (read-ahead in libgfortran).
  open (unit=12, file=path('rw.txt'), status='replace', action='readwrite', blank='zero')
  do i = 1, 3 * iterations
    write (12, '(a,i0,a,i0)') 'rw line ', i, ' square ', i * i
  end do
  rewind (12)
  ! NEWUNIT: -10, -11 (closed again: a gap), -12.
  open (newunit=u_data, file=path('data.bin'), status='replace', access='stream', form='unformatted')
  open (newunit=u_gap, file=path('gap.txt'), status='replace')
  open (newunit=u_nml, file=path('state.nml'), status='replace', delim='apostrophe')
  close (u_gap, status='delete')
  ! Namelist input, prepared here and read back one group per iteration.
  open (unit=13, file=path('params.nml'), status='replace')
  do i = 1, iterations
    write (13, '(a,i0,a,i0,a)') '&params k=', 7 * i, ', label="p', i, '" /'
  end do
  rewind (13)
  ! Asynchronous transfers, each waited for at once (libgfortran runs them on a thread of its own).
  open (unit=14, file=path('async.bin'), status='replace', access='stream', form='unformatted', asynchronous='yes')
  if (extra == 'scratch') open (unit=31, status='scratch')
  if (extra == 'implicit') write (32, '(a)') 'implicitly connected'

  call random_seed(size=seed_size)
  allocate (seed(seed_size))
  seed = [(104729 * i + 17, i = 1, seed_size)]
  call random_seed(put=seed)

  fds = [fnum(10), fnum(11), fnum(12), fnum(13), fnum(u_data), fnum(u_nml)]
  print '(a,6(1x,i0),a,3(1x,i0))', 'fds', fds, ' newunits', u_data, u_gap, u_nml
  step = 0
  x = 0
  values = 0
  do i = 1, iterations
    call random_number(r)
    read (12, '(a)') line
    read (13, nml=params)
    step = i
    x = x + sum(r)
    values = [i, k, i * k, mod(i * 31, 17)]
    write (10, '(a,i0,a,3f12.8)') 'iteration ', i, ' random', r
    write (11, '(a,i0,1x,a)') 'log ', i, trim(line)
    write (21, '(a,i0)') 'early unit ', i
    write (u_data) i, r
    write (u_nml, nml=state)
    write (14, asynchronous='yes') i, r
    wait (14)
    if (i == iterations / 2 + 2) then
      ! After the checkpoint in most cases: libgfortran must hand out the gap again.
      open (newunit=u_late, file=path('late.txt'), status='replace')
      write (u_late, '(a,i0)') 'late unit ', u_late
      print '(a,i0)', 'late newunit ', u_late
    end if
    print '(i0,1x,a,1x,i0,1x,a,f14.10)', i, trim(line), k, trim(label), x
    call boundary()
  end do
  ! Read back what was written, through the same units.
  rewind (u_nml)
  read (u_nml, nml=state, iostat=ios)
  print '(a,i0,1x,i0,1x,a,4(1x,i0))', 'namelist back ', ios, step, trim(label), values
  rewind (u_data)
  read (u_data) k, r
  print '(a,i0,3f12.8)', 'stream back ', k, r
  close (u_late)
  inquire (unit=14, asynchronous=async_mode)
  print '(a,a)', 'async unit asynchronous=', trim(async_mode)
  print '(a)', 'units: done'

contains

  function path(name) result(p)
    character(len=*), intent(in) :: name
    character(len=:), allocatable :: p
    p = trim(dir) // '/' // name
  end function path

end program units
