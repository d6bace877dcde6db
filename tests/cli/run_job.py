#!/usr/bin/env python3
"""End-to-end `yadokari run` with a shim preloaded into the ranks.

usage: run_job.py MODE YADOKARI SHIM_DIR PROGRAM FLAVOUR WORK_DIR [--real-shim]
SHIM_DIR: directory for YADOKARI_SHIM_DIR, or "-" for the default (<bin>/../lib)
--real-shim: the shim counts every MPI call, so also expect rank 1 to be seen inside MPI_Recv
MODE:
  status     while the job runs, `yadokari status --json` lists both ranks; then it exits 0
  exit-code  the application's exit code (3) comes back from `yadokari run`
  sigterm    SIGTERM to `yadokari run` reaches the job, which ends with 143 (128 + 15) on both MPIs;
             the registry is cleaned
  port       --port P: the coordinator listens on P while the job runs; with P taken by another
             socket, `yadokari run` stops at once with exit 1 and one line saying so

PROGRAM is wait_for_file: the ranks stay in the job until a "go" file exists, so nothing here
depends on how fast the machine is. Loops are capped only to turn a hang into a failure.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

RANKS = 2


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def status_json(yadokari, env):
    result = subprocess.run([yadokari, "status", "--json"], env=env, capture_output=True,
                            text=True, timeout=120)
    if result.returncode != 0:
        return None, result.stderr.strip()
    return json.loads(result.stdout), ""


def wait_for_ranks(yadokari, env, run, ready=lambda report: True):
    """Polls `yadokari status --json` until all ranks answer and `ready` holds."""
    last = ""
    for _ in range(1200):
        if run.poll() is not None:
            fail(f"yadokari run ended early with {run.returncode}; last status: {last}")
        report, error = status_json(yadokari, env)
        if report and len(report["ranks"]) == RANKS and ready(report):
            return report
        last = json.dumps(report) if report else error
        time.sleep(0.1)
    fail(f"ranks never all answered; last status: {last}")


def check_report(report, flavour, program):
    if report["flavour"] != flavour:
        fail(f"flavour {report['flavour']}, expected {flavour}")
    if report["world_size"] != RANKS or report["not_answering"] != []:
        fail(f"unexpected world: {report}")
    if report["app"] != program:
        fail(f"app {report['app']}, expected {program}")
    ranks = report["ranks"]
    if [r["rank"] for r in ranks] != list(range(RANKS)):
        fail(f"ranks {[r['rank'] for r in ranks]}")
    if len({r["pid"] for r in ranks}) != RANKS:
        fail("ranks share a pid")
    for r in ranks:
        if r["host"] != socket.gethostname():
            fail(f"rank {r['rank']} on {r['host']}, expected {socket.gethostname()}")
        if r["mpi_calls"] < 1:
            fail(f"rank {r['rank']} counted no MPI call (MPI_Init went through the shim)")
        os.kill(r["pid"], 0)  # the reported pid is a live process


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_taken(port):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return True
        return False


def port_in_use(yadokari, env, app_args):
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        result = subprocess.run([yadokari, "run", "-n", str(RANKS), "--port", str(port), "--"] + app_args,
                                env=env, capture_output=True, text=True, timeout=120)
    expected = f"yadokari: cannot listen on 127.0.0.1:{port} for ranks and node agents: Address already in use"
    if result.returncode != 1 or result.stderr.strip() != expected:
        fail(f"port in use: exit {result.returncode}, stderr {result.stderr!r}, expected exit 1 and {expected!r}")


def jobs_left(state_dir):
    jobs = os.path.join(state_dir, "jobs")
    return os.listdir(jobs) if os.path.isdir(jobs) else []


def main():
    mode, yadokari, shim_dir, program, flavour, work_dir = sys.argv[1:7]
    real_shim = "--real-shim" in sys.argv[7:]
    shutil.rmtree(work_dir, ignore_errors=True)
    os.makedirs(work_dir)
    go_file = os.path.join(work_dir, "go")
    env = dict(os.environ, YADOKARI_STATE_DIR=os.path.join(work_dir, "state"))
    env.pop("YADOKARI_SHIM_DIR", None)
    if shim_dir != "-":
        env["YADOKARI_SHIM_DIR"] = shim_dir
    app_args = [program, go_file]
    if mode == "exit-code":
        open(go_file, "w").close()
        app_args.append("3")

    port_args = []
    if mode == "port":
        port_in_use(yadokari, env, app_args)
        port = free_port()
        port_args = ["--port", str(port)]
    run = subprocess.Popen([yadokari, "run", "-n", str(RANKS), "--mpi", "auto"] + port_args + ["--"] + app_args,
                           env=env)
    try:
        if mode == "status":
            in_recv = lambda report: report["ranks"][1]["current_call"] == "MPI_Recv"
            report = wait_for_ranks(yadokari, env, run, in_recv if real_shim else lambda r: True)
            check_report(report, flavour, program)
            # The real shim samples each rank's time outside MPI; the fake one measures nothing.
            for r in report["ranks"]:
                computing = r["compute_seconds"]
                if real_shim and not (isinstance(computing, float) and 0 <= computing <= r["seconds_since_init"] + 0.05):
                    fail(f"rank {r['rank']}: compute_seconds {computing} (since init {r['seconds_since_init']})")
                if not real_shim and computing is not None:
                    fail(f"rank {r['rank']}: the fake shim measures no compute time, got {computing}")
            table = subprocess.run([yadokari, "status"], env=env, capture_output=True, text=True,
                                   timeout=120)
            if table.returncode != 0 or "rank" not in table.stdout or report["job_id"] not in table.stdout:
                fail(f"status table: {table.returncode} {table.stdout} {table.stderr}")
            open(go_file, "w").close()
            expected = 0
        elif mode == "exit-code":
            expected = 3
        elif mode == "port":
            wait_for_ranks(yadokari, env, run)
            if not port_taken(port):
                fail(f"nothing listens on --port {port} while the job runs")
            open(go_file, "w").close()
            expected = 0
        elif mode == "sigterm":
            wait_for_ranks(yadokari, env, run)
            run.send_signal(signal.SIGTERM)
            expected = 128 + signal.SIGTERM  # on both MPIs, as a shell reports it
        else:
            fail(f"unknown mode {mode}")
        code = run.wait(timeout=300)
    finally:
        if run.poll() is None:
            run.kill()
    if expected is not None and code != expected:
        fail(f"yadokari run exited with {code}, expected {expected}")
    if jobs_left(env["YADOKARI_STATE_DIR"]):
        fail(f"registry not cleaned: {jobs_left(env['YADOKARI_STATE_DIR'])}")
    print(f"ok: {mode} {flavour} (exit {code})")


if __name__ == "__main__":
    main()
