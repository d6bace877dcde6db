// What the generated wrappers (tools/generate_wrappers.py) include: the call scope and fast-path
// word, and the headers of the concerns whose hooks mpi_functions.def names. Nothing is defined
// here; each hook lives with its concern.
#pragma once

#include "cut/cut_protocol.hpp"   // collective_gate, collective_done
#include "cut/cut_state.hpp"      // g_interruptible, g_drained_pending
#include "cut/drain.hpp"          // redeliver_*, refuse_if_drained
#include "cut/interruptible.hpp"  // interruptible_*
#include "objects/channel_hooks.hpp"
#include "objects/object_hooks.hpp"
#include "objects/virtual_handles.hpp"
#include "shim/api.hpp"
#include "shim/call_scope.hpp"
