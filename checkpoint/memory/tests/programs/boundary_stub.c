/* Lets Fortran call the test driver's boundary, which exists only when the driver is preloaded. */
extern int yk_memtest_boundary(void) __attribute__((weak));

void yk_memtest_boundary_f(void) {
  if (yk_memtest_boundary) yk_memtest_boundary();
}
