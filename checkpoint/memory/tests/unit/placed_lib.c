// A library for test_trapped_dlopen.cpp: loaded at a chosen address; its data shows it works there.
int yk_placed_value = 41;

int yk_placed_next(void) { return ++yk_placed_value; }
