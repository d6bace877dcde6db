/* See fake_lib.c. */
#ifndef YK_FAKE_LIB_H
#define YK_FAKE_LIB_H
struct yk_fake_world {
  long owner;
  long calls;
};
extern struct yk_fake_world yk_fake_world;
void yk_fake_check(struct yk_fake_world* world);
#endif
