/* Like limit_plugin.c, with a dependency (limit_plugin_dep.c) found through its RUNPATH ($ORIGIN):
 * table_limits.c loads copies of it next to one copy of the dependency. */
int yk_limit_dep_get(void);

int yk_limit_plugin_get(void) { return yk_limit_dep_get(); }
