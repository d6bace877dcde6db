#pragma once
// Symbols the shim and the memory layer export to the application (everything else is built with
// hidden visibility, so our internals never collide with the application's or the MPI library's).
#define YK_API __attribute__((visibility("default")))
#define YK_C_API extern "C" __attribute__((visibility("default")))
