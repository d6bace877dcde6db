/* A library refusals.c loads with dlopen by its bare name, found through the program's RUNPATH. */
int yk_refusal_plugin_answer(void) { return 42; }
