! Memory test program (Fortran): allocatable arrays that grow (move_alloc) and shrink, a module
! with saved state, a derived type with an allocatable component, a common block. One line per
! iteration, then the call boundary (the preloaded test driver, through a C stub).
! RANDOM_NUMBER and units are exercised by units.f90.
module state
  implicit none
  integer, allocatable, save :: history(:)
  integer(8), save :: seed = 12345_8
  type :: bag
    real(8), allocatable :: items(:)
    character(len=:), allocatable :: label
  end type bag
contains
  integer function next_value()
    seed = modulo(seed * 6364136223_8 + 1442695_8, 2147483647_8)
    next_value = int(modulo(seed, 100000_8))
  end function next_value
end module state

program allocatable
  use state
  implicit none
  interface
    subroutine boundary() bind(C, name="yk_memtest_boundary_f")
    end subroutine boundary
  end interface
  integer :: iterations, i, n, v
  character(len=32) :: arg
  real(8), allocatable :: grid(:, :), tmp(:)
  type(bag) :: b
  real(8) :: total
  integer :: events
  common /counters/ events

  iterations = 40
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) iterations
  end if
  events = 0
  allocate (history(0))
  allocate (b%items(1))
  b%items = 0.5d0
  b%label = "bag"
  do i = 1, iterations
    v = next_value()
    history = [history, v]
    if (size(history) > 12) history = history(size(history) - 11:)
    n = size(b%items) + 1 + mod(v, 3)
    allocate (tmp(n))
    tmp = 0
    tmp(1:size(b%items)) = b%items
    tmp(n) = dble(v) / 1000d0
    call move_alloc(tmp, b%items)
    if (size(b%items) > 50) b%items = b%items(size(b%items) / 2:)
    b%label = b%label // char(iachar('a') + mod(v, 26))
    if (len(b%label) > 40) b%label = b%label(20:)
    if (allocated(grid)) deallocate (grid)
    allocate (grid(1 + mod(v, 9), 1 + mod(i, 7)))
    grid = dble(i) * 0.25d0
    events = events + mod(v, 11)
    total = sum(b%items) + sum(grid) + dble(sum(history))
    write (*, '(A,I4,A,ES22.14,A,I3,A,I3,A,A,A,I6)') 'iter', i, ' total', total, ' items', size(b%items), &
      ' hist', size(history), ' label ', b%label, ' events', events
    call boundary()
  end do
  write (*, '(A,ES22.14)') 'done', sum(b%items)
end program allocatable
