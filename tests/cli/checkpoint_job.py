#!/usr/bin/env python3
"""Checkpointing through the `yadokari` CLI, with the stand-in shim (its ranks play the checkpoint
protocol with fixed counts and write tiny real images, see fake_rank/).

usage: checkpoint_job.py MODE YADOKARI SHIM_DIR APP FLAVOUR WORK_DIR [MAKE_CHECKPOINT OTHER_APP]
APP is ckpt_app: each rank prints its checkpoint environment, then stays in the job until the
file given as its argument exists.
MODE:
  stop-and-restart    run --interval --stop-after-epoch: exit 75, no rank left, nothing of the
                      killed launcher left in TMPDIR, epochs pruned;
                      restart goes on numbering epochs; a last restart hands the ranks
                      YADOKARI_RESTORE of the newest epoch and --rank-map
  checkpoint-command  the app asks for an epoch (yadokari_checkpoint()), `yadokari checkpoint`
                      takes another
  corrupt-fallback    restart skips a newest epoch with a damaged image, says so, and uses the
                      previous one; nothing committed is touched
  changed-binary      restart refuses an executable that changed since the checkpoint
  fifo-files          a FIFO as MANIFEST (skipped with the reason), image (inspect) or job.json is
                      refused at once instead of blocking
  read-only-dir       run refuses a checkpoint directory on a read-only file system (needs root
                      for a private mount namespace; exit 77 = skipped)
Loops are capped only to turn a hang into a failure.
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def committed(ckpt):
    if not os.path.isdir(ckpt):
        return []
    return sorted(int(e) for e in os.listdir(ckpt)
                  if e.isdigit() and os.path.exists(os.path.join(ckpt, e, "MANIFEST")))


def epoch_dirs(ckpt):
    return sorted(int(e) for e in os.listdir(ckpt) if e.isdigit())


def processes_running(path, argument):
    """Pids of live (non-zombie) processes running `path` with `argument` among their arguments:
    other tests run the same app at the same time (ctest -j), each with its own argument."""
    pids = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = [a.decode(errors="replace") for a in f.read().split(b"\0")]
                argv0 = argv[0]
            with open(f"/proc/{pid}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if argv0 == path and argument in argv[1:] and state != "Z":
            pids.append(int(pid))
    return pids


def run(cmd, env, timeout=300):
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)


def expect(result, code, what):
    if result.returncode != code:
        fail(f"{what}: exit {result.returncode}, expected {code}\nstdout: {result.stdout}\n"
             f"stderr: {result.stderr}")


def rank_lines(stdout):
    return sorted(line for line in stdout.splitlines() if line.startswith("rank "))


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def launcher_leftovers(env):
    """What a killed launcher left in the job's TMPDIR: Open MPI's session directories
    (ompi.<host>.<uid>/pid.<mpirun's pid>, with the ranks' shared-memory segments)."""
    return sorted(e for e in os.listdir(env["TMPDIR"]) if e.startswith("ompi."))


def stop_and_restart(y, env, app, work):
    ckpt = os.path.join(work, "ckpt")
    go = os.path.join(work, "go")
    first = run([y, "run", "-n", "2", "--ckpt-dir", ckpt, "--interval", "0.2", "--keep", "2",
                 "--stop-after-epoch", "3", "--", app, go], env)
    expect(first, 75, "run --stop-after-epoch 3")
    if first.stderr.strip().splitlines()[-1] != \
            "yadokari: stopped after epoch 3 as requested (--stop-after-epoch)":
        fail(f"stop message: {first.stderr}")
    if processes_running(app, go):
        fail(f"ranks survived the stop: {processes_running(app, go)}")
    if launcher_leftovers(env):
        fail(f"the stopped launcher's session directory is left in TMPDIR: {launcher_leftovers(env)}")
    if committed(ckpt) != [2, 3] or epoch_dirs(ckpt) != [2, 3]:
        fail(f"after the first run: committed {committed(ckpt)}, directories {epoch_dirs(ckpt)}")
    with open(os.path.join(ckpt, "job.json")) as f:
        job = json.load(f)
    if job["app"] != app or job["args"] != [go] or job["world_size"] != 2:
        fail(f"job.json: {job}")
    for line in rank_lines(first.stdout):
        if f"ckpt_dir={ckpt} restore=- restore_epoch=-" not in line:
            fail(f"rank environment of run: {line}")

    # Restart keeps numbering and pruning in the same directory.
    second = run([y, "restart", "--ckpt-dir", ckpt, "--interval", "0.2", "--stop-after-epoch", "4"], env)
    expect(second, 75, "restart --stop-after-epoch 4")
    if committed(ckpt) != [3, 4]:
        fail(f"after the restart: committed {committed(ckpt)}")
    for line in rank_lines(second.stdout):
        if f"restore={ckpt}/3 restore_epoch=3" not in line:
            fail(f"rank environment of the restart: {line}")
    if processes_running(app, go):
        fail(f"ranks survived the second stop: {processes_running(app, go)}")
    if launcher_leftovers(env):
        fail(f"the second stop left a session directory in TMPDIR: {launcher_leftovers(env)}")
    with open(os.path.join(ckpt, "job.json")) as f:
        if json.load(f) != job:
            fail("restart rewrote job.json")

    open(go, "w").close()
    last = run([y, "restart", "--ckpt-dir", ckpt, "--rank-map", "1,0"], env)
    expect(last, 0, "restart to the end")
    lines = rank_lines(last.stdout)
    expected = [f"rank {r}: ckpt_dir={ckpt} restore={ckpt}/4 restore_epoch=4 rank_map=1,0"
                for r in range(2)]
    if lines != expected:
        fail(f"rank environment of the last restart: {lines}, expected {expected}")


def checkpoint_command(y, env, app, work):
    ckpt = os.path.join(work, "ckpt")
    go = os.path.join(work, "go")
    job = subprocess.Popen([y, "run", "-n", "2", "--ckpt-dir", ckpt, "--", app, go],
                           env=dict(env, YADOKARI_FAKE_ASK_CHECKPOINT="1"))
    try:
        for _ in range(1200):
            if committed(ckpt) == [1] or job.poll() is not None:
                break
            time.sleep(0.1)
        if committed(ckpt) != [1]:
            fail(f"the application's request did not commit epoch 1: {committed(ckpt)}")
        asked = run([y, "checkpoint"], env, timeout=200)
        expect(asked, 0, "yadokari checkpoint")
        if asked.stdout != "yadokari: epoch 2 committed\n":
            fail(f"yadokari checkpoint printed {asked.stdout!r}")
        open(go, "w").close()
        code = job.wait(timeout=300)
    finally:
        if job.poll() is None:
            job.kill()
    if code != 0:
        fail(f"the job ended with {code}")
    if committed(ckpt) != [1, 2]:
        fail(f"committed {committed(ckpt)}")


def corrupt_fallback(y, env, app, work, make):
    ckpt = os.path.join(work, "corrupt")
    subprocess.run([make, ckpt, app, "2", "--epochs", "2", "--corrupt-newest"], check=True)
    bad = os.path.join(ckpt, "2", "rank-1.img")
    before = sha(bad)
    result = run([y, "restart", "--ckpt-dir", ckpt], env)
    expect(result, 0, "restart from the previous epoch")
    first = result.stderr.splitlines()[0] if result.stderr else ""
    wanted = ("yadokari: epoch 2 is not usable (rank-1.img: checksum mismatch in area 'heap'); "
              "using epoch 1")
    if first != wanted:
        fail(f"stderr: {result.stderr!r}, expected first line {wanted!r}")
    expected = [f"rank {r}: ckpt_dir={ckpt} restore={ckpt}/1 restore_epoch=1 rank_map=-"
                for r in range(2)]
    if rank_lines(result.stdout) != expected:
        fail(f"rank environment: {rank_lines(result.stdout)}")
    if sha(bad) != before or committed(ckpt) != [1, 2]:
        fail("the restart touched a committed epoch")


def fifo_files(y, env, app, work, make):
    """A FIFO where an image, a MANIFEST or job.json should be is refused at once (it used to
    block the reader for ever, waiting for a writer)."""
    ckpt = os.path.join(work, "fifo")
    subprocess.run([make, ckpt, app, "2", "--epochs", "2"], check=True)
    manifest = os.path.join(ckpt, "2", "MANIFEST")
    os.remove(manifest)
    os.mkfifo(manifest)
    result = run([y, "restart", "--ckpt-dir", ckpt], env, timeout=60)
    expect(result, 0, "restart past a FIFO MANIFEST")
    first = result.stderr.splitlines()[0] if result.stderr else ""
    wanted = f"yadokari: epoch 2 is not usable ({manifest}: cannot open: not a regular file); using epoch 1"
    if first != wanted:
        fail(f"stderr: {result.stderr!r}, expected first line {wanted!r}")
    image = os.path.join(ckpt, "1", "rank-0.img")
    os.remove(image)
    os.mkfifo(image)
    result = run([y, "inspect", image], env, timeout=60)
    expect(result, 1, "inspect of a FIFO")
    if result.stderr != f"yadokari: {image}: cannot open: not a regular file\n":
        fail(f"inspect stderr: {result.stderr!r}")
    job = os.path.join(ckpt, "job.json")
    os.remove(job)
    os.mkfifo(job)
    result = run([y, "restart", "--ckpt-dir", ckpt], env, timeout=60)
    expect(result, 1, "restart with a FIFO job.json")
    if result.stderr != f"yadokari: {job}: cannot open: not a regular file\n":
        fail(f"restart stderr: {result.stderr!r}")


def changed_binary(y, env, app, work, make, other_app):
    ckpt = os.path.join(work, "changed")
    copy = os.path.join(work, "changed-app")
    shutil.copy(app, copy)
    subprocess.run([make, ckpt, copy, "2", "--replace-app", other_app], check=True)
    result = run([y, "restart", "--ckpt-dir", ckpt], env)
    expect(result, 1, "restart of a changed binary")
    lines = result.stderr.splitlines()
    prefix = f"yadokari: {copy} changed since the checkpoint (was build-id "
    if len(lines) != 1 or not lines[0].startswith(prefix) or "; now build-id " not in lines[0]:
        fail(f"stderr: {result.stderr!r}")


def read_only_dir(y, env, app, work):
    if os.geteuid() != 0 or not shutil.which("unshare"):
        print("skipped: needs root and unshare")
        sys.exit(77)
    mount = os.path.join(work, "read-only")
    os.makedirs(mount, exist_ok=True)
    script = ('mount -t tmpfs -o ro,mode=0700 tmpfs "$1" || exit 77; shift; exec "$@"')
    result = run(["unshare", "-m", "sh", "-c", script, "sh", mount, y, "run", "-n", "2",
                  "--ckpt-dir", mount, "--", app, os.path.join(work, "go")], env)
    if result.returncode == 77:
        print("skipped: cannot mount")
        sys.exit(77)
    expect(result, 1, "run with a read-only checkpoint directory")
    wanted = f"yadokari: checkpoint directory {mount} is not writable: Read-only file system\n"
    if result.stderr != wanted:
        fail(f"stderr: {result.stderr!r}, expected {wanted!r}")


def main():
    mode, y, shim_dir, app, flavour, work = sys.argv[1:7]
    extra = sys.argv[7:]
    os.makedirs(work, exist_ok=True)
    for name in ("ckpt", "go", "state", "tmp"):
        path = os.path.join(work, name)
        shutil.rmtree(path, ignore_errors=True) if os.path.isdir(path) else None
        if os.path.isfile(path):
            os.remove(path)
    # A TMPDIR of its own: what the launchers leave there is this test's alone (ctest -j).
    os.makedirs(os.path.join(work, "tmp"))
    env = dict(os.environ, YADOKARI_STATE_DIR=os.path.join(work, "state"), TMPDIR=os.path.join(work, "tmp"),
               YADOKARI_SHIM_DIR=shim_dir, OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    for name in ("YADOKARI_CKPT_DIR", "YADOKARI_CKPT_INTERVAL", "YADOKARI_STOP_AFTER_EPOCH",
                 "YADOKARI_KEEP", "YADOKARI_CKPT_COMPRESS"):
        env.pop(name, None)
    if mode == "stop-and-restart":
        stop_and_restart(y, env, app, work)
    elif mode == "checkpoint-command":
        checkpoint_command(y, env, app, work)
    elif mode == "corrupt-fallback":
        corrupt_fallback(y, env, app, work, extra[0])
    elif mode == "fifo-files":
        fifo_files(y, env, app, work, extra[0])
    elif mode == "changed-binary":
        changed_binary(y, env, app, work, extra[0], extra[1])
    elif mode == "read-only-dir":
        read_only_dir(y, env, app, work)
    else:
        fail(f"unknown mode {mode}")
    print(f"ok: {mode} {flavour}")


if __name__ == "__main__":
    main()
