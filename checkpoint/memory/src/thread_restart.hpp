#pragma once
// Starting the application's carried threads again after a restart (checkpoint/memory/README.md,
// "Threads"). The image brought back each thread's stack at its address, and with it glibc's
// descriptor of the first run at the stack's top. pthread_create on that same stack puts the new
// descriptor at the same address (so the application's pthread_t values name the new threads) and
// runs the same frames down to the call of the start routine; the new thread then copies the
// first run's frames below that point and its static TLS blocks back (set aside before glibc
// initialised them), sets its thread-specific data again and jumps into the park handler, which
// returns into the interrupted code. A thread that had ended is started again only to end with
// the same result, so that a join still finds it.
namespace yadokari::memory {

// In the restarted process, on the main thread, after the process state was replayed.
void start_carried_threads_again();

// The start routine of such a thread (threads.cpp's thread_start calls it where the first run
// called the application's): never returns into its caller's frame for a parked thread.
void* resume_carried_thread(void* resume_info);

}  // namespace yadokari::memory
