! Memory test program (Fortran, built with -fdec): OPEN specifiers of the DEC extensions change what
! a unit does after a restart unless the reconnecting OPEN gives them again. CARRIAGECONTROL='FORTRAN' makes the
! first character of every record carriage control (a '1' starts a new page: a form feed in the
! file), READONLY makes a WRITE fail, SHARE= is kept. One record per iteration into DIR, one line
! on stdout, then the call boundary; the first boundary comes before the units are opened.
! Usage: dec_units ITERATIONS DIR
program dec_units
  implicit none
  interface
    subroutine boundary() bind(C, name="yk_memtest_boundary_f")
    end subroutine boundary
  end interface
  integer :: iterations, i, ios
  character(len=4096) :: dir
  character(len=32) :: arg
  character(len=80) :: line

  call get_command_argument(1, arg)
  read (arg, *) iterations
  call get_command_argument(2, dir)
  print '(a)', 'dec_units: start'
  call boundary()

  open (unit=20, file=trim(dir)//'/input.txt', status='replace')
  do i = 1, iterations
    write (20, '(a,i0)') 'input ', i
  end do
  close (20)
  open (unit=21, file=trim(dir)//'/input.txt', status='old', readonly, share='denynone')
  open (unit=22, file=trim(dir)//'/printer.txt', status='replace', carriagecontrol='fortran', share='denynone')
  do i = 1, iterations
    read (21, '(a)') line
    write (22, '(a,a)') merge('1', ' ', mod(i, 4) == 1), trim(line)
    print '(i0,1x,a)', i, trim(line)
    call boundary()
  end do
  write (21, '(a)', iostat=ios) 'must fail'
  print '(a,l1)', 'a write to the READONLY unit fails: ', ios /= 0
  close (22)
  print '(a)', 'dec_units: done'
end program dec_units
