/* The dependency of limit_plugin_user.c. */
int yk_limit_dep_value = 1;

int yk_limit_dep_get(void) { return yk_limit_dep_value; }
