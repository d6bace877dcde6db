! Memory test program (Fortran + OpenMP): RANDOM_NUMBER on the threads of a parallel region, whose
! generators live in libgfortran's per-thread state: a checkpoint after it must be refused
! (checkpoint/memory/README.md, "RANDOM_NUMBER"). With "main" as third argument only the main
! thread draws (inside a MASTER construct), which is carried. One line per iteration, then the
! call boundary. Usage: random_threads ITERATIONS DIR [main]
program random_threads
  implicit none
  interface
    subroutine boundary() bind(C, name="yk_memtest_boundary_f")
    end subroutine boundary
  end interface
  integer :: iterations, i, seed_size
  integer, allocatable :: seed(:)
  character(len=32) :: arg, mode
  real(8) :: draws(8)

  call get_command_argument(1, arg)
  read (arg, *) iterations
  call get_command_argument(3, mode)
  call boundary()
  call random_seed(size=seed_size)
  allocate (seed(seed_size))
  seed = 424242
  call random_seed(put=seed)
  do i = 1, iterations
    draws = 0
    if (mode == 'main') then
      !$omp parallel num_threads(2)
      !$omp master
      call random_number(draws)
      !$omp end master
      !$omp end parallel
    else
      !$omp parallel num_threads(2)
      call random_number(draws(1))
      !$omp end parallel
    end if
    write (*, '(a,i0,a,f12.9)') 'iteration ', i, ' draw ', draws(1)
    call boundary()
  end do
end program random_threads
