#pragma once
// The standard descriptors 0–2 are the fresh process's after a restart (the launcher's pipes), so
// the application must not have redirected or closed them since the restore point: code before it
// runs again in a restarted process and redirects them again itself, code after it does not.
// What they refer to is noted at the restore point and compared at every checkpoint; a change
// refuses it (checkpoint/memory/README.md, "Refused, with the reason").
namespace yadokari::memory {

// At the restore point, in every incarnation: what descriptors 0, 1, 2 refer to now.
void note_standard_fds();

// The application closed `fd` (close, fclose of a standard stream): a number ≤ 2 is noted as
// closed, since the layer's own descriptors may take the free number before the check runs.
void note_standard_fd_closed(int fd);
// Something was put on `fd` with dup2/dup3: no longer closed (the check compares what it is).
void note_standard_fd_replaced(int fd);

}  // namespace yadokari::memory
