/* A library the test programs never load: preloaded at restore time only, for the "library
 * that was not there at the checkpoint" refusal. */
int yk_extra_lib_marker(void) { return 1; }
