#!/usr/bin/env bash
# Checkpoint/restart cases for the memory layer, without MPI. The test driver (preloaded, path in
# YK_MEMTEST_DRIVER) checkpoints at the K-th call boundary and exits, as a job killed right after
# its epoch committed; a fresh process restores and continues. Outputs must be byte-identical.
#   run_restart.sh restart  PROG K N        uninterrupted == (run up to K) + (restart)
#   run_restart.sh late     PROG K N        as restart, but restoring at the first boundary (as after
#                                           MPI_Init): the line printed before it appears twice
#   run_restart.sh smallstack PROG K N      as restart, the restart under `ulimit -s 256`: the saved
#                                           stack is deeper than the fresh process's stack mapping
#   run_restart.sh chain    PROG K1 K2 N    uninterrupted == (up to K1) + (restart up to K2) + (restart)
#   run_restart.sh twice    PROG K N        two restarts from one image print the same
#   run_restart.sh continue PROG K N        a checkpoint that does not stop is invisible
#   run_restart.sh changed  PROG_A PROG_B K N   an image of A is refused by B with one line
#   run_restart.sh libchanged PROG DIR EXTRA K N  an image is refused when a library changed
#                                           (DIR/libyk_fakelib.so) or one more is loaded (EXTRA)
#   run_restart.sh badimage PROG K N        garbage and truncated images: clear error, non-zero exit
#   run_restart.sh aslr     PROG            the driver turns ASLR off by re-executing
#   run_restart.sh plain    PROG N          same output with and without the driver
#   run_restart.sh expect   PROG FILE       the output under the driver is FILE
#   run_restart.sh files    PROG N K1 [K2..] the files program (files.c) checkpointed at K1, restarted,
#                                           checkpointed at K2, ...: its stdout and every file it
#                                           wrote equal an uninterrupted run's; lines appended
#                                           after each checkpoint to its O_APPEND file are cut off
#   run_restart.sh fileson  PROG N K        the files program checkpointed at K goes on to its end
#                                           (as a run that fails later), then is restarted: its
#                                           files, appended.log (never open at the checkpoint,
#                                           the open journal's) among them, equal an uninterrupted run's
#   run_restart.sh filegone PROG N K        a file deleted before the restart, an input changed
#                                           since the checkpoint, or a descriptor number in use, is
#                                           refused with one line (nothing changed); an input
#                                           replaced by a copy of itself is not
#   run_restart.sh funits PROG N [late] K1 [K2..]  the Fortran units program (units.f90) checkpointed
#                                           at K1, restarted (at the first boundary with "late"),
#                                           ...: stdout and every file it wrote equal an
#                                           uninterrupted run's; lines written after each
#                                           checkpoint (as the killed incarnation would) are cut off
#   run_restart.sh fdec PROG N K            the -fdec units program (dec_units.f90) checkpointed at K
#                                           and restarted: stdout and its files equal an
#                                           uninterrupted run's
#   run_restart.sh funits_refused PROG N K  a scratch unit, or a unit connected without OPEN,
#                                           refuses the checkpoint with one exact line and no
#                                           image; a unit's file deleted refuses the restore
#   run_restart.sh frandom PROG N K         random_threads.f90: RANDOM_NUMBER on OpenMP threads refuses
#                                           the checkpoint (one line, exit 71, no image); on the main
#                                           thread only it is carried (same output as uninterrupted)
#   run_restart.sh state PROG N HOW K1 [K2] the app_state program (its own mappings and libc process
#                                           state), HOW = restart | late | chain: stdout, every file it
#                                           wrote in its directory and their modes equal an
#                                           uninterrupted run's; so does stdout of a run checkpointed
#                                           at K1 that goes on
#   run_restart.sh diverted PROG N K        diverted_mmap.c: its GOT entry for mmap pointed at libc's
#                                           (as UCX's hooks do): the checkpoint at K is refused with one
#                                           line naming it (exit 71, no image)
#   run_restart.sh divertedlib PROG N K     the same with the pages mapped, and the GOT entry diverted,
#                                           by a library linked with the program (diverted_lib.c)
#   run_restart.sh freshdiffers PROG K N    checkpointed at K, restored with another
#                                           YADOKARI_FRESH_LIBRARIES (both ways): refused with one
#                                           line naming the library, the image unchanged
#   run_restart.sh staterefused PROG N K    a shared mapping of a deleted file: the checkpoint is
#                                           refused with one line naming it, the program stops (71)
#   run_restart.sh python SCRIPT N K        a Python program (numpy_steps.py: numpy imported after the
#                                           restore point) checkpointed at K and restarted, both
#                                           restoring at the first boundary: stdout and its file
#                                           equal an uninterrupted run's
#   run_restart.sh statetaken PROG N K      the address of a mapping taken in the fresh process before
#                                           the (late) restore: refused with one line, nothing changed
#   run_restart.sh limitrefused PROG N K    the app_state program checkpointed at K (after it set its
#                                           limits), restored where its open files' hard limit is
#                                           lower and cannot be raised: refused with one line,
#                                           nothing changed; restored where it can be, it goes on
#   run_restart.sh glibcpaths PROG MODE N K the glibc_paths program: MODE carried is checkpointed at K
#                                           and restarted (stdout equals an uninterrupted run's);
#                                           released must checkpoint; every other MODE must refuse the
#                                           checkpoint with exactly the lines it wrote to
#                                           expected-refusals (exit 71, no image)
set -euo pipefail
driver=${YK_MEMTEST_DRIVER:?set YK_MEMTEST_DRIVER to libyk_memtest.so}
mode=$1
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# run NAME [VAR=value ...] -- PROG ARGS: stdout to $work/NAME.out, stderr to $work/NAME.err;
# the exit status is returned (never fatal here).
run() {
  local name=$1
  shift
  local vars=()
  while [[ $1 != -- ]]; do
    vars+=("$1")
    shift
  done
  shift
  local rc=0
  env "${vars[@]}" "$@" >"$work/$name.out" 2>"$work/$name.err" || rc=$?
  return $rc
}

expect_ok() {  # NAME RC
  [[ $2 == 0 ]] || fail "$1 exited with $2: $(head -c 2000 "$work/$1.err")"
  [[ ! -s $work/$1.err ]] || fail "$1 wrote to stderr: $(head -c 2000 "$work/$1.err")"
}

# The files program's input: 200 lines of 8..190 bytes (several stdio buffers' worth).
make_input() {
  awk 'BEGIN { for (i = 1; i <= 200; i++) { s = ""; for (j = 0; j < (i * 37) % 180; j++) s = s sprintf("%c", 97 + (i + j) % 26); print "line " i " " s } }' >"$1"
}

# The app_state program run to its checkpoint at K (restore point at the first boundary) in
# $work/d, image $work/img, the sums of its files kept.
checkpoint_state_late() {  # PROG N K
  mkdir "$work/d"
  local rc=0
  run part1 "$pre" YK_MEMTEST_RESTORE_LATE=1 YK_MEMTEST_CKPT_AT="$3" YK_MEMTEST_CKPT_FILE="$work/img" \
    -- "$1" "$2" "$work/d" || rc=$?
  expect_ok part1 $rc
  (cd "$work/d" && find . -type f -exec md5sum {} + | sort) >"$work/before.sums"
}

# The restore run as "refused" (its exit status RC) stopped before anything changed: exit 70 after
# only "start", LINE its one line on stderr, the program's files as they were; the same image then
# restores where nothing is in the way.
expect_state_restore_refused() {  # RC LINE PROG N
  [[ $1 == 70 ]] || fail "the restore went ahead: rc $1, $(cat "$work/refused.err")"
  [[ $(cat "$work/refused.out") == start ]] || fail "the refused restore ran the program: $(head -3 "$work/refused.out")"
  [[ $(wc -l <"$work/refused.err") == 1 ]] || fail "expected one line on stderr, got: $(cat "$work/refused.err")"
  grep -qF "$2" "$work/refused.err" || fail "unclear refusal: $(cat "$work/refused.err")"
  (cd "$work/d" && find . -type f -exec md5sum {} + | sort) >"$work/after.sums"
  same "$work/before.sums" "$work/after.sums" "the refused restore changed the program's files"
  local rc=0
  run back "$pre" YK_MEMTEST_RESTORE_LATE=1 YADOKARI_RESTORE="$work/img" -- "$3" "$4" "$work/d" || rc=$?
  expect_ok back $rc
  echo "ok: $(cat "$work/refused.err")"
}

same() {  # EXPECTED ACTUAL WHAT
  cmp -s "$1" "$2" || { diff "$1" "$2" | head -20 >&2; fail "$3"; }
}

pre="LD_PRELOAD=$driver"
tag="YK_TEST_TAG=alpha"
# The restarted process gets a different value: the application must still see the old one.
newtag="YK_TEST_TAG=beta"

case $mode in
  python)
    script=$1 n=$2 k=$3
    py=${YK_PYTHON:-/usr/bin/python3}
    mkdir -p "$work/ref" "$work/run"
    rc=0; (cd "$work/ref" && run ref "$pre" YK_MEMTEST_RESTORE_LATE=1 -- "$py" "$script" "$n") || rc=$?
    expect_ok ref $rc
    rc=0; (cd "$work/run" && run part1 "$pre" YK_MEMTEST_RESTORE_LATE=1 YK_MEMTEST_CKPT_AT="$k" \
      YK_MEMTEST_CKPT_FILE="$work/img" -- "$py" "$script" "$n") || rc=$?
    expect_ok part1 $rc
    [[ -s $work/img ]] || fail "no image written"
    # Another hash secret in the environment: the restarted interpreter must use the image's.
    rc=0; (cd "$work/run" && run part2 "$pre" YK_MEMTEST_RESTORE_LATE=1 YADOKARI_RESTORE="$work/img" \
      PYTHONHASHSEED=12345 -- "$py" "$script" "$n") || rc=$?
    expect_ok part2 $rc
    cat "$work/part1.out" "$work/part2.out" >"$work/joined.out"
    same "$work/ref.out" "$work/joined.out" "checkpointed + restarted Python output differs from the uninterrupted run"
    same "$work/ref/steps.txt" "$work/run/steps.txt" "the file the Python program wrote differs"
    echo "ok: $(wc -l <"$work/part1.out") lines before the checkpoint at boundary $k, $(wc -l <"$work/part2.out") after the restart"
    ;;
  restart)
    prog=$1 k=$2 n=$3
    # The restore point is the first boundary in every incarnation, as MPI_Init is in the product.
    rc=0; run ref "$pre" "$tag" YK_MEMTEST_RESTORE_LATE=1 -- "$prog" "$n" || rc=$?; expect_ok ref $rc
    rc=0; run part1 "$pre" "$tag" YK_MEMTEST_RESTORE_LATE=1 YK_MEMTEST_CKPT_AT="$k" YK_MEMTEST_CKPT_FILE="$work/img" \
      -- "$prog" "$n" || rc=$?
    expect_ok part1 $rc
    [[ -s $work/img ]] || fail "no image written"
    rc=0; run part2 "$pre" "$newtag" YADOKARI_RESTORE="$work/img" -- "$prog" "$n" || rc=$?; expect_ok part2 $rc
    cat "$work/part1.out" "$work/part2.out" >"$work/joined.out"
    same "$work/ref.out" "$work/joined.out" "checkpointed + restarted output differs from the uninterrupted run"
    echo "ok: $(wc -l <"$work/part1.out") lines before the checkpoint at boundary $k, $(wc -l <"$work/part2.out") after the restart, image $(stat -c %s "$work/img") bytes"
    ;;
  smallstack)
    prog=$1 k=$2 n=$3
    rc=0; run ref "$pre" "$tag" -- "$prog" "$n" || rc=$?; expect_ok ref $rc
    rc=0; run part1 "$pre" "$tag" YK_MEMTEST_CKPT_AT="$k" YK_MEMTEST_CKPT_FILE="$work/img" -- "$prog" "$n" || rc=$?
    expect_ok part1 $rc
    rc=0; (ulimit -s 256 && run part2 "$pre" YADOKARI_RESTORE="$work/img" -- "$prog" "$n") || rc=$?
    expect_ok part2 $rc
    cat "$work/part1.out" "$work/part2.out" >"$work/joined.out"
    same "$work/ref.out" "$work/joined.out" "restart with a smaller stack limit differs"
    echo "ok"
    ;;
  late)
    prog=$1 k=$2 n=$3
    rc=0; run ref "$pre" "$tag" -- "$prog" "$n" || rc=$?; expect_ok ref $rc
    rc=0; run part1 "$pre" "$tag" YK_MEMTEST_CKPT_AT="$k" YK_MEMTEST_CKPT_FILE="$work/img" -- "$prog" "$n" || rc=$?
    expect_ok part1 $rc
    rc=0; run part2 "$pre" "$newtag" YADOKARI_RESTORE="$work/img" YK_MEMTEST_RESTORE_LATE=1 -- "$prog" "$n" || rc=$?
    expect_ok part2 $rc
    # Code before the restore point runs again (docs/architecture.md, pitfall 10): here it prints
    # the first line again (with allocations from glibc: the arena is off until the restore).
    (( $(wc -l <"$work/part2.out") == $(wc -l <"$work/ref.out") - $(wc -l <"$work/part1.out") + 1 )) ||
      fail "expected exactly one line printed before the restore"
    { cat "$work/part1.out"; tail -n +2 "$work/part2.out"; } >"$work/joined.out"
    same "$work/ref.out" "$work/joined.out" "checkpointed + late-restarted output differs from the uninterrupted run"
    echo "ok"
    ;;
  chain)
    prog=$1 k1=$2 k2=$3 n=$4
    rc=0; run ref "$pre" "$tag" -- "$prog" "$n" || rc=$?; expect_ok ref $rc
    rc=0; run part1 "$pre" "$tag" YK_MEMTEST_CKPT_AT="$k1" YK_MEMTEST_CKPT_FILE="$work/img1" -- "$prog" "$n" || rc=$?
    expect_ok part1 $rc
    rc=0; run part2 "$pre" "$newtag" YADOKARI_RESTORE="$work/img1" YK_MEMTEST_CKPT_AT="$k2" \
      YK_MEMTEST_CKPT_FILE="$work/img2" -- "$prog" "$n" || rc=$?
    expect_ok part2 $rc
    [[ -s $work/img2 ]] || fail "the restarted process wrote no second image"
    rc=0; run part3 "$pre" "$tag" YADOKARI_RESTORE="$work/img2" -- "$prog" "$n" || rc=$?; expect_ok part3 $rc
    cat "$work/part1.out" "$work/part2.out" "$work/part3.out" >"$work/joined.out"
    same "$work/ref.out" "$work/joined.out" "checkpoint -> restart -> checkpoint -> restart output differs"
    echo "ok: $(wc -l <"$work/part1.out") + $(wc -l <"$work/part2.out") + $(wc -l <"$work/part3.out") lines"
    ;;
  twice)
    prog=$1 k=$2 n=$3
    rc=0; run part1 "$pre" "$tag" YK_MEMTEST_CKPT_AT="$k" YK_MEMTEST_CKPT_FILE="$work/img" -- "$prog" "$n" || rc=$?
    expect_ok part1 $rc
    rc=0; run again1 "$pre" YADOKARI_RESTORE="$work/img" -- "$prog" "$n" || rc=$?; expect_ok again1 $rc
    rc=0; run again2 "$pre" YADOKARI_RESTORE="$work/img" -- "$prog" "$n" || rc=$?; expect_ok again2 $rc
    [[ -s $work/again1.out ]] || fail "the restart printed nothing"
    same "$work/again1.out" "$work/again2.out" "two restarts from the same image differ"
    echo "ok: both restarts printed $(wc -l <"$work/again1.out") identical lines"
    ;;
  continue)
    prog=$1 k=$2 n=$3
    rc=0; run ref "$pre" "$tag" -- "$prog" "$n" || rc=$?; expect_ok ref $rc
    rc=0; run cont "$pre" "$tag" YK_MEMTEST_CKPT_AT="$k" YK_MEMTEST_CKPT_FILE="$work/img" YK_MEMTEST_CONTINUE=1 \
      -- "$prog" "$n" || rc=$?
    expect_ok cont $rc
    same "$work/ref.out" "$work/cont.out" "a checkpoint changed the output of the process that took it"
    rc=0; run stop "$pre" "$tag" YK_MEMTEST_CKPT_AT="$k" YK_MEMTEST_CKPT_FILE="$work/img2" -- "$prog" "$n" || rc=$?
    expect_ok stop $rc
    rc=0; run rest "$pre" YADOKARI_RESTORE="$work/img" -- "$prog" "$n" || rc=$?; expect_ok rest $rc
    cat "$work/stop.out" "$work/rest.out" >"$work/joined.out"
    same "$work/ref.out" "$work/joined.out" "restart from an image taken by a process that went on differs"
    echo "ok"
    ;;
  changed)
    prog_a=$1 prog_b=$2 k=$3 n=$4
    cp "$prog_a" "$work/prog"
    rc=0; run part1 "$pre" YK_MEMTEST_CKPT_AT="$k" YK_MEMTEST_CKPT_FILE="$work/img" -- "$work/prog" "$n" || rc=$?
    expect_ok part1 $rc
    cp "$prog_b" "$work/prog"
    rc=0; run refused "$pre" YADOKARI_RESTORE="$work/img" -- "$work/prog" "$n" || rc=$?
    [[ $rc != 0 ]] || fail "a changed executable restored without complaint"
    [[ ! -s $work/refused.out ]] || fail "the refused restore ran the program: $(head -3 "$work/refused.out")"
    [[ $(wc -l <"$work/refused.err") == 1 ]] || fail "expected one line on stderr, got: $(cat "$work/refused.err")"
    grep -q "changed since the checkpoint" "$work/refused.err" || fail "unclear refusal: $(cat "$work/refused.err")"
    cp "$prog_a" "$work/prog"
    rc=0; run back "$pre" YADOKARI_RESTORE="$work/img" -- "$work/prog" "$n" || rc=$?; expect_ok back $rc
    echo "ok: $(cat "$work/refused.err")"
    ;;
  libchanged)
    prog=$1 dir=$2 extra_lib=$3 k=$4 n=$5
    rc=0; run part1 "$pre" YK_MEMTEST_CKPT_AT="$k" YK_MEMTEST_CKPT_FILE="$work/img" -- "$prog" "$n" || rc=$?
    expect_ok part1 $rc
    rc=0; run refused "$pre" LD_LIBRARY_PATH="$dir" YADOKARI_RESTORE="$work/img" -- "$prog" "$n" || rc=$?
    [[ $rc != 0 ]] || fail "a changed library restored without complaint"
    [[ ! -s $work/refused.out ]] || fail "the refused restore ran the program"
    [[ $(wc -l <"$work/refused.err") == 1 ]] || fail "expected one line on stderr, got: $(cat "$work/refused.err")"
    grep -q "libyk_fakelib.so changed since the checkpoint" "$work/refused.err" || fail "unclear refusal: $(cat "$work/refused.err")"
    # An extra library that was not there at the checkpoint is refused too.
    rc=0; run extra "LD_PRELOAD=$driver $extra_lib" YADOKARI_RESTORE="$work/img" -- "$prog" "$n" || rc=$?
    [[ $rc != 0 && $(wc -l <"$work/extra.err") == 1 ]] || fail "an extra library was accepted: $(cat "$work/extra.err")"
    grep -q "was not when the checkpoint was taken" "$work/extra.err" || fail "unclear refusal: $(cat "$work/extra.err")"
    echo "ok: $(cat "$work/refused.err")"
    echo "ok: $(cat "$work/extra.err")"
    ;;
  freshdiffers)
    # The libraries whose data the image carries are classified again by the restoring process:
    # another YADOKARI_FRESH_LIBRARIES is refused before anything changes, the image untouched.
    prog=$1 k=$2 n=$3
    for side in restore checkpoint; do
      at_checkpoint=() at_restore=(YADOKARI_FRESH_LIBRARIES=libyk_fakelib)
      [[ $side == checkpoint ]] && at_checkpoint=(YADOKARI_FRESH_LIBRARIES=libyk_fakelib) at_restore=()
      rm -f "$work/img"
      rc=0; run part1 "$pre" "${at_checkpoint[@]}" YK_MEMTEST_CKPT_AT="$k" YK_MEMTEST_CKPT_FILE="$work/img" -- "$prog" "$n" || rc=$?
      expect_ok part1 $rc
      before=$(sha256sum <"$work/img")
      rc=0; run refused "$pre" "${at_restore[@]}" YADOKARI_RESTORE="$work/img" -- "$prog" "$n" || rc=$?
      [[ $rc != 0 ]] || fail "a restore with another YADOKARI_FRESH_LIBRARIES went ahead"
      [[ ! -s $work/refused.out ]] || fail "the refused restore ran the program"
      [[ $(wc -l <"$work/refused.err") == 1 ]] || fail "expected one line on stderr, got: $(cat "$work/refused.err")"
      if [[ $side == restore ]]; then said="the checkpoint carried its data, this process would not carry it"; else said="the checkpoint did not carry its data, this process would carry it"; fi
      grep -q "library /[^ ]*/libyk_fakelib.so: $said (YADOKARI_FRESH_LIBRARIES must name the same libraries as when the checkpoint was taken)" \
        "$work/refused.err" || fail "unclear refusal: $(cat "$work/refused.err")"
      [[ $(sha256sum <"$work/img") == "$before" ]] || fail "the refused restore changed the image"
      echo "ok: $(cat "$work/refused.err")"
    done
    ;;
  badimage)
    prog=$1 k=$2 n=$3
    head -c 100000 /dev/urandom >"$work/garbage"
    rc=0; run garbage "$pre" YADOKARI_RESTORE="$work/garbage" -- "$prog" "$n" || rc=$?
    [[ $rc != 0 && ! -s $work/garbage.out && $(wc -l <"$work/garbage.err") == 1 ]] ||
      fail "garbage image: rc $rc, $(cat "$work/garbage.err")"
    rc=0; run missing "$pre" YADOKARI_RESTORE="$work/does-not-exist" -- "$prog" "$n" || rc=$?
    [[ $rc != 0 && ! -s $work/missing.out && $(wc -l <"$work/missing.err") == 1 ]] ||
      fail "missing image: rc $rc, $(cat "$work/missing.err")"
    rc=0; run part1 "$pre" YK_MEMTEST_CKPT_AT="$k" YK_MEMTEST_CKPT_FILE="$work/img" -- "$prog" "$n" || rc=$?
    expect_ok part1 $rc
    head -c $(($(stat -c %s "$work/img") / 2)) "$work/img" >"$work/half"
    rc=0; run half "$pre" YADOKARI_RESTORE="$work/half" -- "$prog" "$n" || rc=$?
    [[ $rc != 0 && ! -s $work/half.out ]] || fail "truncated image: rc $rc, output $(head -3 "$work/half.out")"
    grep -q "ended early" "$work/half.err" || fail "truncated image: unclear error: $(cat "$work/half.err")"
    # A checkpoint into a directory that does not exist fails cleanly.
    rc=0; run nodir "$pre" YK_MEMTEST_CKPT_AT="$k" YK_MEMTEST_CKPT_FILE="$work/no/such/dir/img" -- "$prog" "$n" || rc=$?
    [[ $rc == 71 && $(wc -l <"$work/nodir.err") == 1 ]] || fail "unwritable image path: rc $rc, $(cat "$work/nodir.err")"
    echo "ok: $(cat "$work/garbage.err")"
    echo "ok: $(cat "$work/missing.err")"
    echo "ok: $(cat "$work/half.err")"
    echo "ok: $(cat "$work/nodir.err")"
    ;;
  aslr)
    prog=$1
    # With the driver, every run has the same address-space layout (checked on cat's own maps)
    # and the no-randomisation personality bit (0x0040000); the re-exec guard is not left behind.
    rc=0; run maps1 "$pre" -- cat /proc/self/maps || rc=$?; expect_ok maps1 $rc
    rc=0; run maps2 "$pre" -- cat /proc/self/maps || rc=$?; expect_ok maps2 $rc
    same "$work/maps1.out" "$work/maps2.out" "two runs have different address-space layouts"
    rc=0; run pers "$pre" -- cat /proc/self/personality || rc=$?; expect_ok pers $rc
    (( (16#$(cat "$work/pers.out") & 16#0040000) != 0 )) || fail "personality $(cat "$work/pers.out") lacks ADDR_NO_RANDOMIZE"
    rc=0; run env "$pre" -- env || rc=$?; expect_ok env $rc
    ! grep -q YADOKARI_ASLR_REEXEC "$work/env.out" || fail "the re-exec guard variable leaked into the environment"
    # The re-exec goes through /proc/self/exe; the process keeps its own name all the same.
    rc=0; run comm "$pre" -- cat /proc/self/comm || rc=$?; expect_ok comm $rc
    [[ "$(cat "$work/comm.out")" == cat ]] || fail "the process is named '$(cat "$work/comm.out")' after the re-exec, not 'cat'"
    grep -q '^101000000000\|^100fff' "$work/maps1.out" || fail "no application stack at the fixed address: $(cat "$work/maps1.out")"
    rc=0; run prog "$pre" -- "$prog" 3 || rc=$?; expect_ok prog $rc
    echo "ok"
    ;;
  plain)
    prog=$1 n=$2
    rc=0; run without YK_TEST_ADDRS=0 -- "$prog" "$n" || rc=$?; expect_ok without $rc
    rc=0; run with "$pre" YK_TEST_ADDRS=0 -- "$prog" "$n" || rc=$?; expect_ok with $rc
    same "$work/without.out" "$work/with.out" "the driver changed the program's output"
    echo "ok"
    ;;
  expect)
    prog=$1 expected=$2
    rc=0; run out "$pre" -- "$prog" || rc=$?; expect_ok out $rc
    same "$expected" "$work/out.out" "unexpected output"
    echo "ok"
    ;;
  files)
    prog=$1 n=$2
    shift 2
    mkdir "$work/ref" "$work/ckpt"
    make_input "$work/ref/in.txt"
    make_input "$work/ckpt/in.txt"
    rc=0; run ref "$pre" "$tag" -- "$prog" "$n" "$work/ref" || rc=$?; expect_ok ref $rc
    grep -qx 'fds 900 901 902 903 904' "$work/ref.out" || fail "files not in the reserved range: $(head -1 "$work/ref.out")"
    restore=()
    : >"$work/joined.out"
    i=0
    for k in "$@"; do
      i=$((i + 1))
      rc=0; run "part$i" "$pre" "$tag" "${restore[@]}" YK_MEMTEST_CKPT_AT="$k" YK_MEMTEST_CKPT_FILE="$work/img$i" \
        -- "$prog" "$n" "$work/ckpt" || rc=$?
      expect_ok "part$i" $rc
      [[ -s $work/img$i ]] || fail "no image written at boundary $k"
      cat "$work/part$i.out" >>"$work/joined.out"
      # The killed incarnation went on appending after its checkpoint: the restart cuts that off.
      echo "appended after the checkpoint" >>"$work/ckpt/raw.log"
      restore=(YADOKARI_RESTORE="$work/img$i")
    done
    rc=0; run last "$pre" "$newtag" "${restore[@]}" -- "$prog" "$n" "$work/ckpt" || rc=$?; expect_ok last $rc
    cat "$work/last.out" >>"$work/joined.out"
    same "$work/ref.out" "$work/joined.out" "checkpointed + restarted output differs from the uninterrupted run"
    for f in out.txt raw.log data.bin fd.txt; do
      same "$work/ref/$f" "$work/ckpt/$f" "$f written across the restart(s) differs from the uninterrupted run's"
    done
    echo "ok: stdout and out.txt ($(stat -c %s "$work/ckpt/out.txt") bytes), raw.log, data.bin, fd.txt identical"
    ;;
  fileson)
    prog=$1 n=$2 k=$3
    mkdir "$work/ref" "$work/ckpt"
    make_input "$work/ref/in.txt"
    make_input "$work/ckpt/in.txt"
    rc=0; run ref "$pre" "$tag" -- "$prog" "$n" "$work/ref" || rc=$?; expect_ok ref $rc
    rc=0; run part1 "$pre" "$tag" YK_MEMTEST_CKPT_AT="$k" YK_MEMTEST_CKPT_FILE="$work/img" YK_MEMTEST_CONTINUE=1 \
      -- "$prog" "$n" "$work/ckpt" || rc=$?
    expect_ok part1 $rc
    same "$work/ref.out" "$work/part1.out" "the run that went on past its checkpoint printed something else"
    [[ -s "$work/img.open-journal/1" ]] || fail "nothing journaled after the checkpoint (no $work/img.open-journal/1)"
    rc=0; run last "$pre" "$newtag" YADOKARI_RESTORE="$work/img" -- "$prog" "$n" "$work/ckpt" || rc=$?
    expect_ok last $rc
    tail -n "$(wc -l <"$work/last.out")" "$work/ref.out" >"$work/tail.out"
    same "$work/tail.out" "$work/last.out" "the restart printed something else than the end of the uninterrupted run"
    for f in out.txt raw.log data.bin fd.txt appended.log; do
      same "$work/ref/$f" "$work/ckpt/$f" "$f written past the checkpoint and again after the restart differs"
    done
    echo "ok: appended.log ($(stat -c %s "$work/ckpt/appended.log") bytes) and the other files identical"
    ;;
  filegone)
    prog=$1 n=$2 k=$3
    mkdir "$work/d"
    make_input "$work/d/in.txt"
    rc=0; run part1 "$pre" YK_MEMTEST_CKPT_AT="$k" YK_MEMTEST_CKPT_FILE="$work/img" -- "$prog" "$n" "$work/d" || rc=$?
    expect_ok part1 $rc
    cp "$work/d/out.txt" "$work/out.saved"
    mv "$work/d/in.txt" "$work/in.saved"
    rc=0; run gone "$pre" YADOKARI_RESTORE="$work/img" -- "$prog" "$n" "$work/d" || rc=$?
    [[ $rc != 0 ]] || fail "a restore with a deleted file went ahead"
    [[ ! -s $work/gone.out ]] || fail "the refused restore ran the program: $(head -3 "$work/gone.out")"
    [[ $(wc -l <"$work/gone.err") == 1 ]] || fail "expected one line on stderr, got: $(cat "$work/gone.err")"
    grep -q "$work/d/in.txt" "$work/gone.err" || fail "the refusal does not name the file: $(cat "$work/gone.err")"
    same "$work/out.saved" "$work/d/out.txt" "the refused restore changed out.txt"
    mv "$work/in.saved" "$work/d/in.txt"
    # The input changed since the checkpoint (one byte, same size; then a line fewer): refused.
    cp -p "$work/d/in.txt" "$work/in.saved"
    sed -i '$ s/.$/#/' "$work/d/in.txt"
    rc=0; run edited "$pre" YADOKARI_RESTORE="$work/img" -- "$prog" "$n" "$work/d" || rc=$?
    expected="yadokari: cannot restore $work/img: the application's file $work/d/in.txt (descriptor 901), which it reads, changed since the checkpoint"
    [[ $rc != 0 && ! -s $work/edited.out && "$(cat "$work/edited.err")" == "$expected" ]] ||
      fail "an edited input: rc $rc, stderr: $(cat "$work/edited.err")"
    sed '$ d' "$work/in.saved" >"$work/d/in.txt"
    rc=0; run shorter "$pre" YADOKARI_RESTORE="$work/img" -- "$prog" "$n" "$work/d" || rc=$?
    [[ $rc != 0 && "$(cat "$work/shorter.err")" == "$expected" ]] || fail "a shorter input: rc $rc, $(cat "$work/shorter.err")"
    same "$work/out.saved" "$work/d/out.txt" "the refused restore changed out.txt"
    # A copy with the same contents (another inode, another time) is the same input, also with a line
    # appended (another rank may append to a file this one reads: it cuts that off later).
    cp "$work/in.saved" "$work/d/in.copy" && rm "$work/d/in.txt" && mv "$work/d/in.copy" "$work/d/in.txt"
    echo "appended after the checkpoint" >>"$work/d/in.txt"
    # A reserved descriptor number already taken in the fresh process: refused as well.
    rc=0; (exec 903</dev/null && run taken "$pre" YADOKARI_RESTORE="$work/img" -- "$prog" "$n" "$work/d") || rc=$?
    [[ $rc != 0 && ! -s $work/taken.out && $(wc -l <"$work/taken.err") == 1 ]] ||
      fail "a taken descriptor: rc $rc, $(cat "$work/taken.err")"
    grep -q "descriptor 903, which is in use" "$work/taken.err" || fail "unclear refusal: $(cat "$work/taken.err")"
    # With the file back and the number free, the same image restores.
    rc=0; run back "$pre" YADOKARI_RESTORE="$work/img" -- "$prog" "$n" "$work/d" || rc=$?; expect_ok back $rc
    echo "ok: $(cat "$work/gone.err")"
    echo "ok: $(cat "$work/edited.err")"
    echo "ok: $(cat "$work/taken.err")"
    ;;
  funits)
    prog=$1 n=$2
    shift 2
    late=()
    if [[ $1 == late ]]; then
      late=(YK_MEMTEST_RESTORE_LATE=1)
      shift
    fi
    mkdir "$work/ref" "$work/ckpt"
    rc=0; run ref "$pre" "$tag" -- "$prog" "$n" "$work/ref" || rc=$?; expect_ok ref $rc
    # Every unit's descriptor sits in the reserved range, and NEWUNIT numbers have a gap at -11.
    grep -qx 'fds 901 902 903 905 904 906 newunits -10 -11 -12' "$work/ref.out" ||
      fail "unexpected descriptors or unit numbers: $(grep fds "$work/ref.out")"
    restore=()
    : >"$work/joined.out"
    i=0
    for k in "$@"; do
      i=$((i + 1))
      rc=0; run "part$i" "$pre" "$tag" "${restore[@]}" YK_MEMTEST_CKPT_AT="$k" YK_MEMTEST_CKPT_FILE="$work/img$i" \
        -- "$prog" "$n" "$work/ckpt" || rc=$?
      expect_ok "part$i" $rc
      [[ -s $work/img$i ]] || fail "no image written at boundary $k"
      # A late restore runs the code before the first boundary again: its one line comes twice.
      if [[ $i == 1 || ${#late[@]} == 0 ]]; then cat "$work/part$i.out"; else tail -n +2 "$work/part$i.out"; fi \
        >>"$work/joined.out"
      # The killed incarnation went on writing after its checkpoint: the restart cuts that off.
      for f in out.txt log.txt early.txt state.nml; do echo "written after the checkpoint" >>"$work/ckpt/$f"; done
      restore=(YADOKARI_RESTORE="$work/img$i" "${late[@]}")
    done
    rc=0; run last "$pre" "$newtag" "${restore[@]}" -- "$prog" "$n" "$work/ckpt" || rc=$?; expect_ok last $rc
    if [[ ${#late[@]} == 0 ]]; then cat "$work/last.out"; else tail -n +2 "$work/last.out"; fi >>"$work/joined.out"
    same "$work/ref.out" "$work/joined.out" "checkpointed + restarted output differs from the uninterrupted run"
    ls "$work/ref" >"$work/ref.files"
    ls "$work/ckpt" >"$work/ckpt.files"
    same "$work/ref.files" "$work/ckpt.files" "the restarted run wrote other files than the uninterrupted one"
    for f in $(cat "$work/ref.files"); do
      same "$work/ref/$f" "$work/ckpt/$f" "$f written across the restart(s) differs from the uninterrupted run's"
    done
    echo "ok: stdout and $(wc -l <"$work/ref.files") files identical ($(tr '\n' ' ' <"$work/ref.files"))"
    ;;
  fdec)
    prog=$1 n=$2 k=$3
    mkdir "$work/ref" "$work/ckpt"
    rc=0; run ref "$pre" "$tag" -- "$prog" "$n" "$work/ref" || rc=$?; expect_ok ref $rc
    rc=0; run part1 "$pre" "$tag" YK_MEMTEST_CKPT_AT="$k" YK_MEMTEST_CKPT_FILE="$work/img" -- "$prog" "$n" "$work/ckpt" ||
      rc=$?
    expect_ok part1 $rc
    [[ -s $work/img ]] || fail "no image written at boundary $k"
    rc=0; run part2 "$pre" "$newtag" YADOKARI_RESTORE="$work/img" -- "$prog" "$n" "$work/ckpt" || rc=$?
    expect_ok part2 $rc
    cat "$work/part1.out" "$work/part2.out" >"$work/joined.out"
    same "$work/ref.out" "$work/joined.out" "checkpointed + restarted output differs from the uninterrupted run"
    for f in input.txt printer.txt; do
      same "$work/ref/$f" "$work/ckpt/$f" "$f written across the restart differs from the uninterrupted run's"
    done
    grep -q $'\f' "$work/ref/printer.txt" || fail "CARRIAGECONTROL='FORTRAN' wrote no form feed: the test does not test it"
    echo "ok: stdout, input.txt and printer.txt identical"
    ;;
  funits_refused)
    prog=$1 n=$2 k=$3
    for kind in scratch implicit; do
      mkdir "$work/$kind"
      rc=0; (cd "$work/$kind" && run "$kind" "$pre" YK_MEMTEST_CKPT_AT="$k" YK_MEMTEST_CKPT_FILE="$work/img-$kind" \
        -- "$prog" "$n" "$work/$kind" "$kind") || rc=$?
      [[ $rc == 71 ]] || fail "a checkpoint with a $kind unit was not refused (exit $rc): $(cat "$work/$kind.err")"
      [[ ! -e $work/img-$kind && ! -e $work/img-$kind.tmp ]] || fail "the refused checkpoint left an image"
    done
    same - "$work/scratch.err" "unexpected refusal" <<<"yadokari: checkpoint refused: unit 31 is a scratch file, which is not carried"
    same - "$work/implicit.err" "unexpected refusal" \
      <<<"yadokari: checkpoint refused: unit 32 was connected without OPEN, which is not carried: $work/implicit/fort.32"
    # A unit's file deleted before the restart: refused with one line, the program does not run,
    # the other files stay as they were.
    mkdir "$work/d"
    rc=0; run part1 "$pre" YK_MEMTEST_CKPT_AT="$k" YK_MEMTEST_CKPT_FILE="$work/img" -- "$prog" "$n" "$work/d" || rc=$?
    expect_ok part1 $rc
    rm "$work/d/log.txt"
    cp -r "$work/d" "$work/d.saved"
    rc=0; run gone "$pre" YADOKARI_RESTORE="$work/img" -- "$prog" "$n" "$work/d" || rc=$?
    [[ $rc != 0 ]] || fail "a restore with a deleted file went ahead"
    [[ ! -s $work/gone.out ]] || fail "the refused restore ran the program: $(head -3 "$work/gone.out")"
    same - "$work/gone.err" "unexpected refusal" <<<"yadokari: cannot restore $work/img: the application's file \
$work/d/log.txt (descriptor 902) cannot be reopened: No such file or directory"
    diff -r "$work/d.saved" "$work/d" >&2 || fail "the refused restore changed the files"
    echo "ok: $(cat "$work/scratch.err")"
    echo "ok: $(cat "$work/implicit.err")"
    echo "ok: $(cat "$work/gone.err")"
    ;;
  frandom)
    prog=$1 n=$2 k=$3
    # RANDOM_NUMBER on OpenMP threads: refused with one line, no image. Drawn on the main thread
    # only: checkpointed, restarted, the same numbers as an uninterrupted run.
    mkdir "$work/threads" "$work/main"
    rc=0; run threads "$pre" OMP_NUM_THREADS=2 YK_MEMTEST_CKPT_AT="$k" YK_MEMTEST_CKPT_FILE="$work/img-threads" \
      -- "$prog" "$n" "$work/threads" || rc=$?
    [[ $rc == 71 ]] || fail "a checkpoint after RANDOM_NUMBER on OpenMP threads was not refused (exit $rc)"
    [[ ! -e $work/img-threads && ! -e $work/img-threads.tmp ]] || fail "the refused checkpoint left an image"
    same - "$work/threads.err" "unexpected refusal" <<<"yadokari: checkpoint refused: RANDOM_NUMBER was used on \
a thread other than the main one (an OpenMP thread), whose generator is not carried"
    rc=0; run ref "$pre" OMP_NUM_THREADS=2 -- "$prog" "$n" "$work/main" main || rc=$?; expect_ok ref $rc
    rc=0; run part1 "$pre" OMP_NUM_THREADS=2 YK_MEMTEST_CKPT_AT="$k" YK_MEMTEST_CKPT_FILE="$work/img" \
      -- "$prog" "$n" "$work/main" main || rc=$?; expect_ok part1 $rc
    rc=0; run part2 "$pre" OMP_NUM_THREADS=2 YADOKARI_RESTORE="$work/img" -- "$prog" "$n" "$work/main" main || rc=$?
    expect_ok part2 $rc
    cat "$work/part1.out" "$work/part2.out" >"$work/joined.out"
    same "$work/ref.out" "$work/joined.out" "RANDOM_NUMBER on the main thread differs after the restart"
    echo "ok: $(cat "$work/threads.err")"
    ;;
  state)
    prog=$1 n=$2 how=$3
    shift 3
    late=()
    [[ $how == late ]] && late=(YK_MEMTEST_RESTORE_LATE=1)
    mkdir "$work/ref" "$work/ckpt"
    rc=0; run ref "$pre" "$tag" "${late[@]}" -- "$prog" "$n" "$work/ref" || rc=$?; expect_ok ref $rc
    restore=()
    : >"$work/joined.out"
    i=0
    for k in "$@"; do
      i=$((i + 1))
      rc=0; run "part$i" "$pre" "$tag" "${late[@]}" "${restore[@]}" YK_MEMTEST_CKPT_AT="$k" \
        YK_MEMTEST_CKPT_FILE="$work/img$i" -- "$prog" "$n" "$work/ckpt" || rc=$?
      expect_ok "part$i" $rc
      [[ -s $work/img$i ]] || fail "no image written at boundary $k"
      # A late restore runs the code before the first boundary again: it prints "start" again.
      if [[ $i == 1 || $how != late ]]; then cat "$work/part$i.out"; else tail -n +2 "$work/part$i.out"; fi >>"$work/joined.out"
      restore=(YADOKARI_RESTORE="$work/img$i")
    done
    rc=0; run last "$pre" "$newtag" "${late[@]}" "${restore[@]}" -- "$prog" "$n" "$work/ckpt" || rc=$?; expect_ok last $rc
    if [[ $how != late ]]; then cat "$work/last.out"; else tail -n +2 "$work/last.out"; fi >>"$work/joined.out"
    same "$work/ref.out" "$work/joined.out" "checkpointed + restarted output differs from the uninterrupted run"
    grep -qx 'timer alive' "$work/last.out" || fail "the interval timer did not survive the restart"
    # A checkpoint leaves the process that goes on as it was (its waiting signals are read by taking
    # and queueing them again): checkpointed at the first K and continued, it prints what the
    # uninterrupted run prints.
    mkdir "$work/cont"
    rc=0; run cont "$pre" "$tag" "${late[@]}" YK_MEMTEST_CKPT_AT="$1" YK_MEMTEST_CONTINUE=1 \
      YK_MEMTEST_CKPT_FILE="$work/img-cont" -- "$prog" "$n" "$work/cont" || rc=$?
    expect_ok cont $rc
    same "$work/ref.out" "$work/cont.out" "a checkpointed run that went on differs from the uninterrupted run"
    (cd "$work/ref" && find . -printf '%p %m %s\n' | sort) >"$work/ref.tree"
    (cd "$work/ckpt" && find . -printf '%p %m %s\n' | sort) >"$work/ckpt.tree"
    same "$work/ref.tree" "$work/ckpt.tree" "the files written across the restart(s) (names, modes, sizes) differ"
    diff -r "$work/ref" "$work/ckpt" >&2 || fail "the files written across the restart(s) differ"
    echo "ok: stdout and $(wc -l <"$work/ref.tree") files identical"
    ;;
  diverted | divertedlib)
    # The same refusal for the executable's GOT entry and for a linked library's (diverted_lib.c).
    prog=$1 n=$2 k=$3 in_library=() caller="the executable's"
    if [[ $mode == divertedlib ]]; then in_library=(library) caller="library /[^ ]*/libyk_diverted_lib.so's"; fi
    rc=0; run refused "$pre" YK_MEMTEST_CKPT_AT="$k" YK_MEMTEST_CKPT_FILE="$work/img" -- "$prog" "$n" "${in_library[@]}" || rc=$?
    [[ $rc == 71 ]] || fail "a checkpoint with mmap diverted went ahead: rc $rc, $(cat "$work/refused.err")"
    [[ ! -e $work/img ]] || fail "an image was written"
    [[ $(wc -l <"$work/refused.err") == 1 ]] || fail "expected one line on stderr, got: $(cat "$work/refused.err")"
    grep -qx "yadokari: checkpoint refused: $caller calls of mmap go to /[^ ]*/libc.so.6, past the layer that records its mappings (UCX's memory hooks do this: set UCX_MEM_MMAP_HOOK_MODE=none), which is not carried" \
      "$work/refused.err" || fail "unclear refusal: $(cat "$work/refused.err")"
    echo "ok: $(cat "$work/refused.err")"
    ;;
  staterefused)
    prog=$1 n=$2 k=$3
    mkdir "$work/d"
    rc=0; run refused "$pre" YK_STATE_DELETED=1 YK_MEMTEST_CKPT_AT="$k" YK_MEMTEST_CKPT_FILE="$work/img" \
      -- "$prog" "$n" "$work/d" || rc=$?
    [[ $rc == 71 ]] || fail "a checkpoint with a deleted shared file went ahead: rc $rc, $(cat "$work/refused.err")"
    [[ ! -e $work/img ]] || fail "an image was written"
    [[ $(wc -l <"$work/refused.err") == 1 ]] || fail "expected one line on stderr, got: $(cat "$work/refused.err")"
    grep -qx "yadokari: checkpoint refused: the file $work/d/scratch.bin behind the application's shared mapping at 0x[0-9a-f]* was deleted or replaced" \
      "$work/refused.err" || fail "unclear refusal: $(cat "$work/refused.err")"
    echo "ok: $(cat "$work/refused.err")"
    ;;
  glibcpaths)
    prog=$1 what=$2 n=$3 k=$4
    late=YK_MEMTEST_RESTORE_LATE=1
    mkdir "$work/ref" "$work/d"
    if [[ $what == carried ]]; then
      # The program names its POSIX shared memory after its directory's inode; gone even if it fails.
      trap 'rm -f /dev/shm/yk-glibc-paths-$(stat -c %i "$work/ref") /dev/shm/yk-glibc-paths-$(stat -c %i "$work/d"); rm -rf "$work"' EXIT
      rc=0; run ref "$pre" "$late" -- "$prog" "$what" "$work/ref" "$n" || rc=$?; expect_ok ref $rc
      grep -qx "at_quick_exit handler ran" "$work/ref.out" || fail "the uninterrupted run did not run its handler"
      grep -qx "mkstemp's descriptor is in the carried range" "$work/ref.out" || fail "mkstemp's file was not adopted"
      grep -qx "shm_open's descriptor is in the carried range" "$work/ref.out" || fail "shm_open's file was not adopted"
      rc=0; run part1 "$pre" "$late" YK_MEMTEST_CKPT_AT="$k" YK_MEMTEST_CKPT_FILE="$work/img" \
        -- "$prog" "$what" "$work/d" "$n" || rc=$?
      expect_ok part1 $rc
      [[ -s $work/img ]] || fail "no image written"
      rc=0; run part2 "$pre" "$late" YADOKARI_RESTORE="$work/img" -- "$prog" "$what" "$work/d" "$n" || rc=$?
      expect_ok part2 $rc
      cat "$work/part1.out" "$work/part2.out" >"$work/joined.out"
      same "$work/ref.out" "$work/joined.out" "checkpointed + restarted output differs from the uninterrupted run"
      echo "ok: mkstemp's file, POSIX shared memory and the at_quick_exit handler survived the restart at boundary $k"
      exit 0
    fi
    rc=0; run part1 "$pre" "$late" YK_MEMTEST_CKPT_AT="$k" YK_MEMTEST_CKPT_FILE="$work/img" \
      -- "$prog" "$what" "$work/d" "$n" || rc=$?
    if [[ $what == released ]]; then
      expect_ok part1 $rc
      [[ -s $work/img ]] || fail "everything was released, yet no image was written"
      echo "ok: everything released before boundary $k, the checkpoint was taken"
      exit 0
    fi
    [[ $rc == 71 ]] || fail "the checkpoint went ahead: rc $rc, $(cat "$work/part1.err")"
    [[ ! -e $work/img ]] || fail "an image was written"
    [[ -s $work/d/expected-refusals ]] || fail "the program wrote no expected-refusals"
    sed 's/^/yadokari: checkpoint refused: /' "$work/d/expected-refusals" | sort >"$work/expected.sorted"
    # Only the refusal lines (a bound hit also warns when it happens).
    grep '^yadokari: checkpoint refused: ' "$work/part1.err" | sort >"$work/got.sorted"
    same "$work/expected.sorted" "$work/got.sorted" "the refusal lines differ from the expected ones"
    echo "ok: $(wc -l <"$work/got.sorted") line(s): $(head -n 1 "$work/got.sorted")"
    ;;
  statetaken)
    prog=$1 n=$2 k=$3
    checkpoint_state_late "$prog" "$n" "$k"
    rc=0; run refused "$pre" YK_STATE_SQUAT=1 YK_MEMTEST_RESTORE_LATE=1 YADOKARI_RESTORE="$work/img" \
      -- "$prog" "$n" "$work/d" || rc=$?
    expect_state_restore_refused $rc \
      "the application's mapping at 0x200000000000 (8192 bytes) cannot be restored: the address range is in use in this process" \
      "$prog" "$n"
    ;;
  limitrefused)
    prog=$1 n=$2 k=$3
    checkpoint_state_late "$prog" "$n" "$k"
    hard=$(ulimit -Hn)  # the image's: the program lowers only the soft limit
    # A hard limit of 950 (the layer keeps the application's files above 900) and no
    # CAP_SYS_RESOURCE (not even as root): the image's cannot be set.
    rc=0
    (ulimit -n 950 && run refused -- setpriv --bounding-set=-sys_resource env "$pre" YK_MEMTEST_RESTORE_LATE=1 \
      YADOKARI_RESTORE="$work/img" "$prog" "$n" "$work/d") || rc=$?
    expect_state_restore_refused $rc \
      "the application's limit RLIMIT_NOFILE (soft 1000, hard $hard) cannot be set in this process (its hard limit is 950): Operation not permitted" \
      "$prog" "$n"
    ;;
  *)
    fail "unknown mode $mode"
    ;;
esac
