#!/bin/sh
# Checkpoint directories for the restart error tests (tests/cli/CMakeLists.txt), under $WORK:
#   empty    job.json, no epoch              four     4 ranks, one good epoch
#   fewer    job of 4 ranks, epoch of 3      flavour  images say mpich, the app is Open MPI
#   gone     the app was deleted since
set -e
rm -rf "$WORK/empty" "$WORK/four" "$WORK/fewer" "$WORK/flavour" "$WORK/gone" "$WORK/no-job-json"
mkdir -p "$WORK/no-job-json"
"$MAKE" "$WORK/empty" "$OMPI_APP" 2 --no-epochs
"$MAKE" "$WORK/four" "$OMPI_APP" 4
"$MAKE" "$WORK/fewer" "$OMPI_APP" 4 --images 3
"$MAKE" "$WORK/flavour" "$OMPI_APP" 2 --image-flavour mpich
cp "$OTHER_APP" "$WORK/gone-app"
"$MAKE" "$WORK/gone" "$WORK/gone-app" 2
rm "$WORK/gone-app"
