// What makes a function part of the shim's interface to the application: the MPI entry points it
// interposes and the yadokari_* functions of pmpi-layer/api/yadokari.h.
#pragma once

// The shim is compiled with hidden visibility so that its internals bind directly (no PLT/GOT
// on the wrappers' fast path); only the MPI entry points it interposes are exported.
#define YK_API __attribute__((visibility("default")))

// misc.cpp: stops the job with one clear line (also called by the generated stubs).
extern "C" [[noreturn]] YK_API void yadokari_unsupported_call(const char* function, const char* binding);
