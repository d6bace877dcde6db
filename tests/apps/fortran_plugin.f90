! A Fortran library that a C program loads with dlopen after MPI_Init (c_fortran_plugin.c): the
! unit it opens and writes and its RANDOM_NUMBER generator must be carried across a restart. On
! Open MPI nothing else loads libgfortran, so it arrives with this library, after the shim: the
! shim's interposed Fortran I/O must find libgfortran's own functions then (it once called a null
! pointer: SIGSEGV at the first WRITE, with or without checkpoints).
module yk_fortran_plugin
  use iso_c_binding
  implicit none
  integer, save :: out = -1
contains
  subroutine yk_fplugin_open(rank) bind(C, name="yk_fplugin_open")
    integer(c_int), value :: rank
    character(len=32) :: name
    integer :: n
    integer, allocatable :: seed(:)
    write (name, '(a,i0,a)') 'fplugin.', rank, '.txt'
    open (newunit=out, file=trim(name), status='replace', action='write')
    call random_seed(size=n)
    allocate (seed(n))
    seed = 1234567 + 7919*rank
    call random_seed(put=seed)
  end subroutine

  function yk_fplugin_step(iteration, value) result(r) bind(C, name="yk_fplugin_step")
    integer(c_int), value :: iteration
    integer(c_long), value :: value
    integer(c_long) :: r
    real(c_double) :: x
    call random_number(x)
    r = mod(value*31_c_long + int(x*1000000d0, c_long), 100003_c_long)
    write (out, '(a,i0,a,i0,a,f14.12)') 'iteration ', iteration, ': ', r, ' random ', x
  end function

  subroutine yk_fplugin_close() bind(C, name="yk_fplugin_close")
    write (out, '(a)') 'closed'
    close (out)
  end subroutine
end module
