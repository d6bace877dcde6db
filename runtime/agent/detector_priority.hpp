#pragma once
// CPU priority for the node agent, the node's failure detector. A heartbeat late because the
// node's ranks (or anything else on the host) took every CPU would make a healthy node look lost;
// the agent sleeps nearly all the time, so running ahead of them costs them little. Only root may
// raise a priority; without the right the agent runs as it is.

namespace yadokari::agent {

// The nice value the agent asks for.
inline constexpr int kDetectorNice = -10;

// For the calling thread and the threads it creates afterwards (ZeroMQ's I/O thread among them):
// call it before the ZeroMQ context.
void raise_thread_priority();

// Where the kernel schedules sessions as groups (autogroup, on by default on many distributions),
// a nice value counts only inside the group, and an agent started by the front end shares the
// front end's group with whatever else that session runs (a test suite, a build, a load
// generator): measured under load, beats went out up to 1.8 s late at nice -10 there. This gives the
// agent a session, hence a group, of its own, with the same priority. Only for agents the front
// end starts: `yadokari join` stays in its terminal's session (Ctrl-C reaches it).
void take_own_scheduling_group();

}  // namespace yadokari::agent
