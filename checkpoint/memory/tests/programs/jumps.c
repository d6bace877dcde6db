/* Memory test program: setjmp buffers set before a checkpoint are jumped to after the restart.
 * glibc mangles a jmp_buf's frame pointer, stack pointer and return address with a key of the
 * process (the pointer guard); a restarted process has another key, so unless the layer mangles
 * them again, the first longjmp to a buffer set before the checkpoint jumps to garbage (SIGSEGV).
 * Three buffers, each set once before the loop and never again: one in main's frame (setjmp), one
 * in the heap (_setjmp), one in .bss with the signal mask (sigsetjmp, SIGUSR1 unblocked when it
 * was set, blocked in the loop). Every third step "fails" into main's frame, every third step
 * after that into the heap buffer; the end leaves through the .bss one, whose mask comes back.
 * Prints one line per step and a summary, the same in every run.
 * Usage: jumps [iterations] */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

extern int yk_memtest_boundary(void) __attribute__((weak));

static sigjmp_buf g_finish; /* .bss */
static volatile int g_step; /* values that must survive a longjmp: not in registers */
static volatile unsigned long g_sum;
static volatile int g_recoveries[2];

static void step(jmp_buf* in_frame, jmp_buf* in_heap) {
  if (yk_memtest_boundary) yk_memtest_boundary();
  const int i = g_step++;
  g_sum = g_sum * 31 + (unsigned long)i;
  printf("step %d sum %lu\n", i, g_sum);
  if (i % 3 == 1) longjmp(*in_frame, i + 1);
  if (i % 3 == 2) longjmp(*in_heap, i + 1);
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 20;
  printf("jumps: %d steps\n", n);
  jmp_buf in_frame;
  jmp_buf* in_heap = malloc(sizeof(jmp_buf));
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  int from;
  if ((from = setjmp(in_frame)) != 0) {
    g_recoveries[0]++;
    printf("recovered in main's frame from step %d\n", from - 1);
    goto loop;
  }
  if ((from = _setjmp(*in_heap)) != 0) {
    g_recoveries[1]++;
    printf("recovered from the heap buffer from step %d\n", from - 1);
    goto loop;
  }
  if (sigsetjmp(g_finish, 1) != 0) {
    sigset_t now;
    sigprocmask(SIG_BLOCK, NULL, &now);
    printf("finished: %d steps, sum %lu, %d + %d recoveries, SIGUSR1 %s\n", g_step, g_sum, g_recoveries[0],
           g_recoveries[1], sigismember(&now, SIGUSR1) ? "blocked" : "unblocked (the saved mask)");
    free(in_heap);
    return 0;
  }
  sigprocmask(SIG_BLOCK, &usr1, NULL);
loop:
  while (g_step < n) step(&in_frame, in_heap);
  siglongjmp(g_finish, 1);
}
