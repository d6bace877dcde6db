// What the generated wrappers (tools/generate_wrappers.py) include: the call scope and fast-path
// word, and the headers of the concerns whose hooks mpi_functions.def names. Nothing is defined
// here; each hook lives with its concern.
#pragma once

#include "pmpi-layer/src/cut/cut_protocol.hpp"   // collective_gate, collective_done
#include "pmpi-layer/src/cut/cut_state.hpp"      // g_interruptible, g_drained_pending
#include "pmpi-layer/src/cut/drain.hpp"          // redeliver_*, refuse_if_drained
#include "pmpi-layer/src/cut/interruptible.hpp"  // interruptible_*
#include "pmpi-layer/src/objects/channel_hooks.hpp"
#include "pmpi-layer/src/objects/object_hooks.hpp"
#include "pmpi-layer/src/objects/virtual_handles.hpp"
#include "pmpi-layer/src/shim/api.hpp"
#include "pmpi-layer/src/shim/call_scope.hpp"
