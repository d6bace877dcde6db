#pragma once
// The application's CPU-time clocks across a restart. A restarted process is a new process whose
// CPU clocks start near zero, so a program that took a CPU time before the checkpoint (LAMMPS'
// "% CPU use", Fortran's CPU_TIME, clock()) would see it run backwards. The values the application
// saw at the checkpoint are carried, and the restarted process adds the difference to what
// clock(), times(), getrusage(RUSAGE_SELF/RUSAGE_THREAD) and clock_gettime(CLOCK_PROCESS_CPUTIME_ID
// / CLOCK_THREAD_CPUTIME_ID) return. The thread clocks are corrected on the application thread only
// (the one that checkpointed); other threads are new after a restart and count from zero.
// Not covered: a clock id from clock_getcpuclockid()/pthread_getcpuclockid(), RUSAGE_CHILDREN.

namespace yadokari::memory {

// At the checkpoint, on the application thread: note the clocks as the application sees them.
void note_cpu_clocks();
// In the restarted process, on the application thread, once the carried memory is back.
void continue_cpu_clocks();

}  // namespace yadokari::memory
