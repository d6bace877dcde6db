#!/usr/bin/env python3
"""Unit tests of tools/generate_wrappers.py on a small table and a fake mpi.h."""
import pathlib
import subprocess
import sys
import tempfile
import unittest

# Every run's files go under one directory that is removed when the tests end.
_SCRATCH = tempfile.TemporaryDirectory(prefix="yk-generator-test-")

GENERATOR = pathlib.Path(sys.argv[1])
REAL_TABLE = pathlib.Path(sys.argv[2])

FAKE_MPI_H = """
int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win);
#define MPI_Comm_c2f(comm) (MPI_Fint)(comm)
int MPI_Comm_c2f(MPI_Comm comm);
"""

TABLE = """
[p2p]
int MPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) @@ post=yadokari::shim::on_send(yk_entry_comm, count, datatype, dest)
int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm {out;new=yadokari::shim::adopt_comm($real, R)})
"""


def run(table, flavour="openmpi", expect_ok=True, f08_imports=None):
    d = pathlib.Path(tempfile.mkdtemp(dir=_SCRATCH.name))
    (d / "t.def").write_text(table)
    (d / "mpi.i").write_text(FAKE_MPI_H)
    extra = []
    if f08_imports is not None:
        (d / "imports.txt").write_text("\n".join(f08_imports) + "\n")
        extra = ["--fortran-imports", str(d / "imports.txt")]
    p = subprocess.run([sys.executable, str(GENERATOR), "--table", str(d / "t.def"), "--flavour", flavour,
                        "--prototypes", str(d / "mpi.i"), "--out-dir", str(d / "out")] + extra,
                       capture_output=True, text=True)
    if expect_ok and p.returncode != 0:
        raise AssertionError(p.stderr)
    return d / "out", p


class GeneratorTest(unittest.TestCase):
    def test_c_wrapper_translates_handles_and_runs_hooks(self):
        out, _ = run(TABLE)
        c = (out / "c_wrappers.cpp").read_text()
        self.assertIn('extern "C" YK_API int MPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)', c)
        self.assertIn("yadokari::shim::CommK::entry* const yk_entry_comm = yadokari::shim::find_entry<yadokari::shim::CommK>(comm);", c)
        self.assertIn("PMPI_Send(buf, count, yadokari::shim::to_real<yadokari::shim::TypeK>(datatype), dest, tag, yadokari::shim::real_of(yk_entry_comm, comm))", c)
        self.assertIn("yadokari::shim::on_send(yk_entry_comm, count, datatype, dest);", c)
        self.assertIn("*newcomm = yadokari::shim::adopt_comm(yk_real_newcomm, R);", c)

    def test_fast_path_leaves_for_the_slow_wrapper_before_anything_happens(self):
        table = ("int MPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, "
                 "MPI_Status* status {need}) @@ prep=yadokari::shim::ReceiveTally yk_received = yadokari::shim::prepare_receive(yk_entry_comm, "
                 "source) ; post=yk_received.commit(yk_status, yk_single_writer) ; redeliver=yadokari::shim::redeliver_recv ; "
                 "interruptible=yadokari::shim::interruptible_recv\n")
        out, _ = run(table)
        c = (out / "c_wrappers.cpp").read_text()
        slow = c[c.index("static int yk_slow_MPI_Recv("):c.index('extern "C" YK_API int MPI_Recv(')]
        fast = c[c.index('extern "C" YK_API int MPI_Recv('):]
        # The slow wrapper is the full one: scope with the cut boundary, polling, drained messages.
        self.assertIn("[[gnu::cold, gnu::noinline]]", c[:c.index("static int yk_slow_MPI_Recv(")])
        for text in ("yadokari::shim::CallScope yk_scope(yadokari::shim::Fn::MPI_Recv);", "yadokari::shim::interruptible_recv(", "yadokari::shim::redeliver_recv(",
                     "constexpr bool yk_single_writer = false;"):
            self.assertIn(text, slow)
        # The fast path: the one-word check first; checkpoints on is the blocking call's own
        # business (its ready path polls inside a fast scope); translation and tallies before
        # its scope opens.
        lines = [x.strip() for x in fast.splitlines()]
        self.assertEqual(lines[1], "if (!yadokari::shim::fast_path_open()) [[unlikely]] return "
                                   "yk_slow_MPI_Recv(buf, count, datatype, source, tag, comm, status);")
        self.assertEqual(lines[2:6], ["if (yadokari::shim::g_interruptible) {",
                                      "yadokari::shim::FastCallScope yk_scope(yadokari::shim::Fn::MPI_Recv);",
                                      "return yadokari::shim::interruptible_recv(buf, count, datatype, source, tag, comm, status);",
                                      "}"])
        plain = fast[fast.index("return yadokari::shim::interruptible_recv("):]  # checkpoints off
        order = [plain.index(x) for x in ("constexpr bool yk_single_writer = true;",
                                         "yadokari::shim::ReceiveTally yk_received = yadokari::shim::prepare_receive(yk_entry_comm, source);",
                                         "if (yadokari::shim::needs_slow_path(yk_received)) [[unlikely]] return yk_slow_MPI_Recv(",
                                         "yadokari::shim::FastCallScope yk_scope(yadokari::shim::Fn::MPI_Recv);", "PMPI_Recv(",
                                         "yk_received.commit(yk_status, yk_single_writer);")]
        self.assertEqual(order, sorted(order))
        self.assertNotIn("redeliver", fast)

    def test_collectives_keep_the_gate_on_the_fast_path(self):
        table = ("[collectives]\nint MPI_Barrier(MPI_Comm comm) @@ post=yadokari::shim::on_collective(yk_entry_comm)\n")
        out, _ = run(table)
        c = (out / "c_wrappers.cpp").read_text()
        fast = c[c.index('extern "C" YK_API int MPI_Barrier('):]
        # Not polled with checkpoints on: no ready path.
        self.assertNotIn("g_interruptible", fast)
        self.assertLess(fast.index("yadokari::shim::FastCallScope"), fast.index("yadokari::shim::collective_gate(comm);"))
        self.assertLess(fast.index("yadokari::shim::collective_gate(comm);"), fast.index("yadokari::shim::find_entry<yadokari::shim::CommK>(comm)"))

    def test_uncovered_functions_get_fail_loudly_stubs_but_macros_do_not(self):
        out, _ = run(TABLE)
        stubs = (out / "unsupported.c").read_text()
        self.assertIn('YK_API int MPI_Win_create() { yadokari_unsupported_call("MPI_Win_create", "C"); return 1; }', stubs)
        self.assertNotIn("int MPI_Send()", stubs)
        self.assertNotIn("MPI_Comm_c2f()", stubs)
        self.assertIn('YK_API void mpi_win_create_() { yadokari_unsupported_call("MPI_Win_create", "Fortran"); }', stubs)

    def test_fortran_bindings_only_for_open_mpi(self):
        out, _ = run(TABLE, "openmpi")
        f = (out / "fortran_bindings.cpp").read_text()
        self.assertIn('extern "C" YK_API void mpi_send_(const void* f_buf, MPI_Fint* f_count', f)
        self.assertIn("const MPI_Comm comm = yadokari::shim::fortran::to_c<yadokari::shim::CommK>(*f_comm);", f)
        self.assertIn("*f_newcomm = yadokari::shim::fortran::to_f<yadokari::shim::CommK>(yk_h_newcomm);", f)
        out, _ = run(TABLE, "mpich")
        self.assertNotIn("mpi_send_", (out / "fortran_bindings.cpp").read_text())
        self.assertNotIn("mpi_win_create_", (out / "unsupported.c").read_text())

    def test_f08_names_of_open_mpi_are_the_same_bindings(self):
        # `use mpi_f08` (libmpi_usempif08) calls ompi_*_f and pmpi_*_, never mpi_*_.
        out, _ = run(TABLE, "openmpi")
        f = (out / "fortran_bindings.cpp").read_text()
        sig = ("const void* f_buf, MPI_Fint* f_count, MPI_Fint* f_datatype, MPI_Fint* f_dest, MPI_Fint* f_tag, "
               "MPI_Fint* f_comm, MPI_Fint* ierr")
        self.assertIn(f'extern "C" YK_API void ompi_send_f({sig}) __attribute__((alias("mpi_send_")));', f)
        self.assertIn(f'extern "C" YK_API void pmpi_send_({sig}) __attribute__((alias("mpi_send_")));', f)
        stubs = (out / "unsupported.c").read_text()
        for symbol in ("mpi_win_create_", "ompi_win_create_f", "pmpi_win_create_"):
            self.assertIn(f'YK_API void {symbol}() {{ yadokari_unsupported_call("MPI_Win_create", "Fortran"); }}',
                          stubs)

    def test_f08_imports_the_shim_does_not_provide_get_stubs(self):
        imports = ["ompi_send_f", "pmpi_comm_split_", "ompi_win_create_f", "ompix_allreduce_init_f",
                   "ompi_f_sync_reg_f", "ompi_aint_add_f", "PMPI_Buffer_detach", "malloc@GLIBC_2.2.5"]
        out, _ = run(TABLE, "openmpi", f08_imports=imports)
        stubs = (out / "unsupported.c").read_text()
        self.assertIn('YK_API void ompix_allreduce_init_f() { yadokari_unsupported_call("MPIX_Allreduce_init", '
                      '"Fortran"); }', stubs)
        # Bindings and stubs already there are not stubbed twice; harmless ones pass through.
        self.assertEqual(stubs.count("ompi_win_create_f()"), 1)
        for symbol in ("ompi_send_f()", "pmpi_comm_split_()", "ompi_f_sync_reg_f", "ompi_aint_add_f", "PMPI_Buffer"):
            self.assertNotIn(symbol, stubs)
        cov = (out / "coverage.txt").read_text()
        self.assertIn("## unsupported from `use mpi_f08` only (not in mpi.h)\nMPIX_Allreduce_init\n", cov)

    def test_function_ids_list_covered_functions(self):
        out, _ = run(TABLE)
        ids = (out / "function_ids.hpp").read_text()
        self.assertIn("MPI_Send,", ids)
        self.assertIn('"MPI_Comm_split",', ids)

    def test_out_handle_without_recipe_is_rejected(self):
        _, p = run("int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm {out})\n", expect_ok=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("MPI_Comm_dup: out handle newcomm needs new= or get", p.stderr)

    def test_duplicate_entries_are_rejected(self):
        line = TABLE.strip().splitlines()[1]
        _, p = run(line + "\n" + line + "\n", expect_ok=False)
        self.assertIn("duplicate entries: ['MPI_Send']", p.stderr)

    def test_real_table_parses_for_both_flavours(self):
        for flavour in ("openmpi", "mpich"):
            d = pathlib.Path(tempfile.mkdtemp(dir=_SCRATCH.name))
            (d / "mpi.i").write_text(FAKE_MPI_H)
            p = subprocess.run([sys.executable, str(GENERATOR), "--table", str(REAL_TABLE), "--flavour", flavour,
                                "--prototypes", str(d / "mpi.i"), "--out-dir", str(d / "out")],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            cov = (d / "out" / "coverage.txt").read_text()
            self.assertIn("MPI_Waitall\trequests\thand-written", cov)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
