#!/usr/bin/env python3
"""Generate the shim's MPI bindings from mpi_functions.def (see the comment at its top).

Outputs, for one MPI ABI (--flavour):
  c_wrappers.cpp        extern "C" MPI_* wrappers: handle translation + hooks, then PMPI_*
  fortran_bindings.cpp  Open MPI only: mpi_*_ symbols that convert and call the C wrappers, and the
                        same bindings as ompi_*_f and pmpi_*_, which `use mpi_f08` calls
  unsupported.c         every other MPI function in the library's mpi.h: fail loudly
  function_ids.hpp      enum of covered functions and their names (call counters, status)
  coverage.txt          covered / hand-written / unsupported lists (docs, tests)
"""
import argparse
import pathlib
import re
import sys

HANDLE_KINDS = {
    "MPI_Comm": "yadokari::shim::CommK", "MPI_Group": "yadokari::shim::GroupK", "MPI_Datatype": "yadokari::shim::TypeK",
    "MPI_Errhandler": "yadokari::shim::ErrhK", "MPI_Op": "yadokari::shim::OpK", "MPI_Info": "yadokari::shim::InfoK",
    "MPI_Request": "yadokari::shim::ReqK", "MPI_Message": "yadokari::shim::MsgK",
}
SCALAR_TYPES = {"int", "MPI_Aint", "MPI_Count", "MPI_Offset", "MPI_Fint"}


class Param:
    def __init__(self, text):
        m = re.match(r"^(.*?)\s*(?:\{(.*)\})?\s*$", text.strip())
        decl, ann = m.group(1), m.group(2) or ""
        self.decl = decl
        self.ann = {}
        for a in filter(None, (x.strip() for x in split_top(ann, ";"))):
            k, _, v = a.partition("=")
            self.ann[k.strip()] = v.strip() if v else True
        if decl in ("void", "..."):
            self.name = None
            self.variadic = decl == "..."
            return
        self.variadic = False
        dm = re.match(r"^(const\s+)?([A-Za-z_][A-Za-z_0-9]*)\s*(\**)\s*([A-Za-z_][A-Za-z_0-9]*)\s*((?:\[[0-9]*\])*)$", decl)
        if not dm:
            raise SystemExit(f"cannot parse parameter: {decl!r}")
        self.const = bool(dm.group(1))
        self.base = dm.group(2)
        self.ptr = len(dm.group(3))
        self.name = dm.group(4)
        self.dims = dm.group(5)
        self.kind = HANDLE_KINDS.get(self.base)

    @property
    def is_array(self):
        return bool(self.dims)


def split_top(text, sep):
    """Split on sep outside (), {}, []."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        if ch == sep and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return out


class Function:
    def __init__(self, line, section):
        sig, *opts = line.split(" @@ ")
        m = re.match(r"^(.+?)\s+(MPI_\w+)\((.*)\)$", sig.strip())
        if not m:
            raise SystemExit(f"cannot parse: {line}")
        self.ret, self.name, params = m.group(1), m.group(2), m.group(3)
        self.section = section
        self.params = [Param(p) for p in split_top(params, ",")]
        self.params = [p for p in self.params if p.name or p.variadic]
        self.opts = {}
        for o in opts:
            for item in split_top(o, ";"):
                item = item.strip()
                if not item:
                    continue
                k, _, v = item.partition("=")
                self.opts[k.strip()] = v.strip() if v else True

    def has(self, opt):
        return opt in self.opts

    def c_params(self):
        parts = []
        for p in self.params:
            if p.variadic:
                parts.append("...")
            else:
                parts.append(re.sub(r"\s+", " ", p.decl))
        return ", ".join(parts) if parts else "void"


def parse_table(path):
    funcs, section = [], ""
    for raw in pathlib.Path(path).read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            section = line.strip("[]")
            continue
        funcs.append(Function(line, section))
    names = [f.name for f in funcs]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise SystemExit(f"duplicate entries: {sorted(dup)}")
    return funcs


def applies(f, flavour):
    return not (f.has("openmpi") and flavour != "openmpi")


# ---------------------------------------------------------------------------------------- C
def collective_gate(f):
    """The communicator a call is collective over (the consistent cut counts and gates those):
    every collective, and every communicator creation that is collective over its parent."""
    comms = [p.name for p in f.params if p.base == "MPI_Comm" and p.ptr == 0 and not p.is_array]
    if not comms:
        return None
    if f.section == "collectives" and f.name != "MPI_Reduce_local":
        return comms[0]
    creates = any("adopt_comm" in str(p.ann.get("new", "")) for p in f.params)
    if creates and f.name != "MPI_Comm_create_group":  # collective over its group only
        return comms[0]
    return None


def gen_c_wrapper(f):
    pre, args, after_out, after_free = [], [], [], []
    for p in f.params:
        k = p.kind
        if k == "yadokari::shim::CommK" and not p.is_array and p.ptr == 0:
            # Looked up once: the hooks (channel table, collective counts) reuse the entry.
            pre.append(f"yadokari::shim::CommK::entry* const yk_entry_{p.name} = yadokari::shim::find_entry<yadokari::shim::CommK>({p.name});")
            args.append(f"yadokari::shim::real_of(yk_entry_{p.name}, {p.name})")
        elif k and not p.is_array and p.ptr == 0:
            args.append(f"yadokari::shim::to_real<{k}>({p.name})")
        elif k and p.is_array:
            n = p.ann.get("n")
            if not n:
                raise SystemExit(f"{f.name}: handle array {p.name} needs n=")
            if "out" in p.ann:
                pre.append(f"std::vector<{p.base}> yk_arr_{p.name}(static_cast<std::size_t>(std::max(0, {n})));")
                args.append(f"yk_arr_{p.name}.data()")
                expr = p.ann["new"].replace("$real", f"yk_arr_{p.name}[yk_i]")
                after_out.append(f"for (int yk_i = 0; yk_i < {n}; ++yk_i) {p.name}[yk_i] = {expr};")
            else:
                pre.append(f"yadokari::shim::RealArray<{k}> yk_arr_{p.name}({p.name}, {n});")
                args.append(f"yk_arr_{p.name}.get()")
        elif k and p.ptr == 1:
            local = f"yk_real_{p.name}"
            if "out" in p.ann:
                pre.append(f"{p.base} {local} = {k}::null();")
                args.append(f"&{local}")
                if "new" in p.ann:
                    after_out.append(f"*{p.name} = {p.ann['new'].replace('$real', local)};")
                elif "get" in p.ann:
                    after_out.append(f"*{p.name} = yadokari::shim::to_virtual<{k}>({local});")
                else:
                    raise SystemExit(f"{f.name}: out handle {p.name} needs new= or get")
            elif "free" in p.ann:
                # Freeing a predefined handle must reach the library as itself (it reports the error).
                pre.append(f"{p.base} {local} = yadokari::shim::codec::is_virtual(*{p.name}) ? yadokari::shim::to_real<{k}>(*{p.name}) : *{p.name};")
                args.append(f"&{local}")
                after_free.append(f"yadokari::shim::release<{k}>(*{p.name});")
                after_free.append(f"*{p.name} = {k}::null();")
            elif "inptr" in p.ann:
                pre.append(f"{p.base} {local} = yadokari::shim::to_real<{k}>(*{p.name});")
                args.append(f"&{local}")
            else:
                raise SystemExit(f"{f.name}: handle pointer {p.name} needs out/free/inptr (or custom)")
        elif p.base == "MPI_Status" and "need" in p.ann:
            pre.append("MPI_Status yk_status_local;")
            pre.append(f"MPI_Status* const yk_status = ({p.name} == MPI_STATUS_IGNORE) ? &yk_status_local : {p.name};")
            args.append("yk_status")
        elif p.variadic:
            raise SystemExit(f"{f.name}: variadic functions must be custom")
        else:
            args.append(p.name)
    call = f"PMPI_{f.name[4:]}({', '.join(args)})"
    header = f"{f.ret} {f.name}({f.c_params()})"
    if f.ret != "int":
        if pre or after_out or after_free:
            raise SystemExit(f"{f.name}: non-int functions must be simple")
        return "\n".join([f'extern "C" YK_API {header} {{', f"  return {call};", "}"])
    names = ", ".join(p.name for p in f.params)
    gate = collective_gate(f)
    body_after = after_out + ([f.opts["post"] + ";"] if "post" in f.opts else []) + after_free
    prep = [d.strip() + ";" for d in split_top(f.opts.get("prep", ""), ",") if d.strip()]
    uses_single_writer = any("yk_single_writer" in x for x in prep + body_after)

    if prep and gate:
        # Collectives look their handles up after the gate (a checkpoint may happen there).
        raise SystemExit(f"{f.name}: prep= cannot be combined with a collective gate")
    if prep and any("std::vector" in x or "RealArray" in x for x in pre):
        # The fast path translates before its scope opens: nothing may allocate
        # (docs/architecture.md, pitfall 7).
        raise SystemExit(f"{f.name}: prep= needs allocation-free handle translation")

    def call_and_hooks(single_writer, looked_up=False):
        out = []
        if uses_single_writer and not looked_up:
            out.append(f"constexpr bool yk_single_writer = {'true' if single_writer else 'false'};")
        if gate:
            # Before anything is looked up: a checkpoint may happen at the gate (cut_protocol.hpp).
            out.append(f"yadokari::shim::collective_gate({gate});")
        if "pre" in f.opts:
            out.append(f"{f.opts['pre']};")
        if not looked_up:
            out += pre + prep
        out.append(f"const int yk_rc = {call};")
        if gate:
            out.append("yadokari::shim::collective_done();")
        if body_after:
            # [[likely]]: keeps the hooks on the straight-line path after the library returns.
            out.append("if (yk_rc == MPI_SUCCESS) [[likely]] {")
            out += ["  " + x for x in body_after]
            out.append("}")
        out.append("return yk_rc;")
        return out

    special = [o for o in ("interruptible", "redeliver", "refuse_drained") if o in f.opts]
    if special and (gate or f.has("nocount")):
        # The slow wrapper runs these checks before call_and_hooks() (the gate, pre=): keep them apart.
        raise SystemExit(f"{f.name}: {', '.join(special)} cannot be combined with a collective gate or nocount")
    if f.has("nocount"):
        lines = [f'extern "C" YK_API {header} {{']
        lines += ["  " + x for x in call_and_hooks(False)]
        lines.append("}")
        return "\n".join(lines)

    # The full wrapper, for whenever something special is going on (shim/slow_path.hpp, g_slow_path):
    # cold and out of line, so that the fast path below saves no registers for it.
    slow = f"yk_slow_{f.name}"
    lines = [f"[[gnu::cold, gnu::noinline]] static int {slow}({f.c_params()}) {{",
             f"  yadokari::shim::CallScope yk_scope(yadokari::shim::Fn::{f.name});"]
    if "interruptible" in f.opts:
        # With checkpoints on, a blocking call polls, so that a checkpoint can stop it.
        lines.append(f"  if (yadokari::shim::g_interruptible) [[unlikely]] return {f.opts['interruptible']}({names});")
    if "redeliver" in f.opts:
        # Messages drained at a checkpoint are delivered before anything from the library.
        lines.append("  if (yadokari::shim::g_drained_pending != 0) [[unlikely]] {")
        lines.append(f"    if (const int yk_r = {f.opts['redeliver']}({names}); yk_r != yadokari::shim::kNotDrained) return yk_r;")
        lines.append("  }")
    if "refuse_drained" in f.opts:
        lines.append("  if (yadokari::shim::g_drained_pending != 0) [[unlikely]]")
        lines.append(f'    yadokari::shim::refuse_if_drained(comm, "{f.name}");')
    lines += ["  " + x for x in call_and_hooks(False)]
    lines.append("}")
    # The fast path: the outermost call, no cut requested, no drained messages, one writer; a
    # blocking call with checkpoints on polls from here (its ready path). Everything else is the
    # slow wrapper's business: a tail call taken before anything has happened, with the arguments
    # still in their registers.
    lines.append(f'extern "C" YK_API {header} {{')
    lines.append(f"  if (!yadokari::shim::fast_path_open()) [[unlikely]] return {slow}({names});")
    if "interruptible" in f.opts:
        lines.append("  if (yadokari::shim::g_interruptible) {")
        lines.append(f"    yadokari::shim::FastCallScope yk_scope(yadokari::shim::Fn::{f.name});")
        lines.append(f"    return {f.opts['interruptible']}({names});")
        lines.append("  }")
    if prep:
        # Translate and prepare the hooks first, so that a tally needing the library (a datatype
        # size not cached yet) can still leave for the slow wrapper; then nothing but the library
        # call remains, and no register has to survive a call other than the library's.
        if uses_single_writer:
            lines.append("  constexpr bool yk_single_writer = true;")
        lines += ["  " + x for x in pre + prep]
        tallies = [d.split("=")[0].split()[-1] for d in prep]
        lines.append(f"  if (yadokari::shim::needs_slow_path({', '.join(tallies)})) [[unlikely]] return {slow}({names});")
    lines.append(f"  yadokari::shim::FastCallScope yk_scope(yadokari::shim::Fn::{f.name});")
    lines += ["  " + x for x in call_and_hooks(True, looked_up=bool(prep))]
    lines.append("}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------- Fortran
def fortran_supported(f):
    if f.has("nofortran") or f.has("fortran_custom") or f.ret not in ("int", "double"):
        return False
    for p in f.params:
        if p.variadic or p.base.endswith("_function") or (p.base == "void" and p.ptr != 1) or p.base == "char" and p.ptr > 1:
            return False
        if p.base == "void" and p.ptr == 1 and p.name in ("attribute_val", "baseptr", "extra_state"):
            return False
    return True


def gen_fortran(f):
    """Fortran binding: every Fortran argument f_<name> gets a C-side variable <name>, so the
    table's n= expressions (written in C names) work unchanged, then the C wrapper is called."""
    fparams, pre, args, post, hidden = [], [], [], [], []
    scalars = []  # by-value conversions come first: n= expressions may name any argument
    for p in f.params:
        n = p.ann.get("n")
        k = p.kind
        fn = f"f_{p.name}"
        if p.base == "void":
            fparams.append(f"{'const ' if p.const else ''}void* {fn}")
            pre.append(f"{'const ' if p.const else ''}void* const {p.name} = yadokari::shim::fortran::buffer({fn});")
        elif p.base == "char":
            fparams.append(f"{'const ' if p.const else ''}char* {fn}")
            hidden.append(f"std::size_t yk_len_{p.name}")
            if "strout" in p.ann:
                pre.append(f"char {p.name}[yadokari::shim::fortran::kMaxString + 1] = {{}};")
                post.append(f"yadokari::shim::fortran::copy_out({fn}, yk_len_{p.name}, {p.name});")
            else:
                pre.append(f"const std::string yk_str_{p.name} = yadokari::shim::fortran::trimmed({fn}, yk_len_{p.name});")
                pre.append(f"const char* const {p.name} = yk_str_{p.name}.c_str();")
        elif p.base == "MPI_Status":
            fparams.append(f"MPI_Fint* {fn}")
            if p.is_array:
                pre.append(f"yadokari::shim::fortran::Statuses yk_st_{p.name}({fn}, {n});")
                pre.append(f"MPI_Status* const {p.name} = yk_st_{p.name}.get();")
                post.append(f"yk_st_{p.name}.copy_out();")
            elif p.const:
                pre.append(f"MPI_Status yk_st_{p.name}; PMPI_Status_f2c({fn}, &yk_st_{p.name});")
                pre.append(f"const MPI_Status* const {p.name} = &yk_st_{p.name};")
            else:
                inout = "inout" in p.ann
                pre.append(f"yadokari::shim::fortran::Status yk_st_{p.name}({fn}, {'true' if inout else 'false'});")
                pre.append(f"MPI_Status* const {p.name} = yk_st_{p.name}.get();")
                post.append(f"yk_st_{p.name}.copy_out();")
        elif k:
            fparams.append(f"MPI_Fint* {fn}")
            if p.is_array:
                pre.append(f"std::vector<{p.base}> yk_h_{p.name}(static_cast<std::size_t>(std::max(0, {n})));")
                if "out" not in p.ann:
                    pre.append(f"for (int yk_i = 0; yk_i < {n}; ++yk_i) yk_h_{p.name}[yk_i] = yadokari::shim::fortran::to_c<{k}>({fn}[yk_i]);")
                if "out" in p.ann or not p.const:
                    post.append(f"for (int yk_i = 0; yk_i < {n}; ++yk_i) {fn}[yk_i] = yadokari::shim::fortran::to_f<{k}>(yk_h_{p.name}[yk_i]);")
                pre.append(f"{p.base}* const {p.name} = yk_h_{p.name}.data();")
            elif p.ptr == 0:
                scalars.append(f"const {p.base} {p.name} = yadokari::shim::fortran::to_c<{k}>(*{fn});")
            else:
                init = f"{k}::null()" if "out" in p.ann else f"yadokari::shim::fortran::to_c<{k}>(*{fn})"
                pre.append(f"{p.base} yk_h_{p.name} = {init};")
                pre.append(f"{p.base}* const {p.name} = &yk_h_{p.name};")
                post.append(f"*{fn} = yadokari::shim::fortran::to_f<{k}>(yk_h_{p.name});")
        elif p.base in SCALAR_TYPES:
            ftype = "MPI_Fint" if p.base == "int" else p.base
            fparams.append(f"{'const ' if p.const else ''}{ftype}* {fn}")
            logical = "logical" in p.ann
            cv = "const " if p.const else ""
            if p.dims == "[][3]":
                pre.append(f"int (*const {p.name})[3] = reinterpret_cast<int(*)[3]>({fn});")
            elif p.is_array and logical:
                pre.append(f"std::vector<int> yk_l_{p.name}(static_cast<std::size_t>(std::max(0, {n})));")
                if "out" not in p.ann:
                    pre.append(f"for (int yk_i = 0; yk_i < {n}; ++yk_i) yk_l_{p.name}[yk_i] = {fn}[yk_i] != 0;")
                else:
                    post.append(f"for (int yk_i = 0; yk_i < {n}; ++yk_i) {fn}[yk_i] = yk_l_{p.name}[yk_i] ? 1 : 0;")
                pre.append(f"int* const {p.name} = yk_l_{p.name}.data();")
            elif p.is_array:
                pre.append(f"{cv}{p.base}* const {p.name} = {fn};")
                if "index" in p.ann:
                    post.append(f"if (*outcount != MPI_UNDEFINED) for (int yk_i = 0; yk_i < {n}; ++yk_i) {fn}[yk_i] += 1;")
            elif p.ptr == 0:
                scalars.append(f"const {p.base} {p.name} = {'(*' + fn + ' != 0)' if logical else '*' + fn};")
            elif logical:
                pre.append(f"int yk_l_{p.name} = 0;")
                pre.append(f"int* const {p.name} = &yk_l_{p.name};")
                post.append(f"*{fn} = yk_l_{p.name} ? 1 : 0;")
            else:
                pre.append(f"{cv}{p.base}* const {p.name} = {fn};")
                if "index" in p.ann:
                    post.append(f"if (*{fn} >= 0) *{fn} += 1;")
        else:
            raise SystemExit(f"{f.name}: no Fortran mapping for {p.decl}")
        args.append(p.name)
    lname = f.name.lower() + "_"
    if f.ret == "double":
        return "\n".join([f'extern "C" YK_API double {lname}() {{ return {f.name}(); }}'] +
                         fortran_aliases(f.name, "double", ""))
    sig = ", ".join(fparams + ["MPI_Fint* ierr"] + hidden)
    lines = [f'extern "C" YK_API void {lname}({sig}) {{']
    lines += ["  " + x for x in scalars + pre]
    lines.append(f"  const int yk_rc = {f.name}({', '.join(args)});")
    if post:
        # [[likely]]: keeps the hooks on the straight-line path after the library returns.
        lines.append("  if (yk_rc == MPI_SUCCESS) [[likely]] {")
        lines += ["    " + x for x in post]
        lines.append("  }")
    lines.append("  if (ierr) *ierr = yk_rc;")
    lines.append("}")
    return "\n".join(lines + fortran_aliases(f.name, "void", sig))


def fortran_alias_names(name):
    """The other names under which Open MPI's Fortran layers reach a binding: `use mpi_f08`
    (libmpi_usempif08) calls the mpif.h layer's ompi_*_f functions, and pmpi_*_ for a few."""
    lower = name.lower()  # mpi_send
    return [f"o{lower}_f", f"p{lower}_"]


def fortran_aliases(name, ret, sig):
    target = name.lower() + "_"
    return [f'extern "C" YK_API {ret} {alias}({sig}) __attribute__((alias("{target}")));'
            for alias in fortran_alias_names(name)]


# ------------------------------------------------------------------------------ unsupported
# Fortran entry points that take no handle and keep no state the shim tracks: passed to the library.
HARMLESS_FORTRAN = {"MPI_Aint_add", "MPI_Aint_diff", "MPI_Wtime", "MPI_Wtick", "MPI_F_sync_reg"}


def f08_entry_points(imports):
    """(symbol, MPI name) of the Fortran entry points among libmpi_usempif08's imports:
    ompi_send_f -> MPI_Send, ompix_allreduce_init_f -> MPIX_Allreduce_init, pmpi_test_ -> MPI_Test."""
    for symbol in imports:
        m = (re.fullmatch(r"(ompix?)_([a-z0-9_]+)_f", symbol) or re.fullmatch(r"(pmpi)_([a-z0-9_]+)_", symbol))
        if m:
            rest = m.group(2)
            yield symbol, ("MPIX_" if m.group(1) == "ompix" else "MPI_") + rest[0].upper() + rest[1:]


def library_functions(prototypes_path):
    """Names of MPI functions declared by the library's (preprocessed) mpi.h."""
    text = pathlib.Path(prototypes_path).read_text()
    names = set(re.findall(r"\b(MPI_[A-Z][A-Za-z0-9_]*)\s*\(", text))
    return sorted(n for n in names if not n.isupper() and not n.startswith("MPI_T_"))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--table", required=True)
    ap.add_argument("--flavour", required=True, choices=["openmpi", "mpich"])
    ap.add_argument("--prototypes", required=True, help="preprocessed mpi.h of that flavour")
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--fortran-imports",
                    help="Open MPI: the undefined dynamic symbols of libmpi_usempif08 (`use mpi_f08`), one a "
                         "line; each Fortran entry point among them that the shim does not provide gets a stub")
    a = ap.parse_args()

    # Functions the header defines as macros (MPICH's f2c/c2f, Open MPI's MPI_Aint_add) never
    # reach a symbol: neither wrap nor stub them.
    macros = set(re.findall(r"#\s*define\s+(MPI_\w+)\(", pathlib.Path(a.prototypes).read_text()))
    funcs = [f for f in parse_table(a.table) if applies(f, a.flavour) and f.name not in macros]
    covered = {f.name for f in funcs}
    declared = library_functions(a.prototypes)
    unsupported = [n for n in declared if n not in covered and n not in macros]
    out = pathlib.Path(a.out_dir)
    out.mkdir(parents=True, exist_ok=True)

    counted = [f for f in funcs if f.ret == "int" or f.has("custom")]
    ids = ["// Generated by tools/generate_wrappers.py from mpi_functions.def. Do not edit.",
           "#pragma once", "#include <cstdint>", "namespace yadokari::shim {",
           "enum class Fn : std::uint16_t {"]
    ids += [f"  {f.name}," for f in counted]
    ids += ["  count_,", "  none_ = 0xffff", "};",
            "inline constexpr const char* kFunctionNames[] = {"]
    ids += [f'  "{f.name}",' for f in counted]
    ids += ["};", "}  // namespace yadokari::shim", ""]
    write(out / "function_ids.hpp", "\n".join(ids))

    c = ["// Generated by tools/generate_wrappers.py from mpi_functions.def. Do not edit.",
         '#include "pmpi-layer/src/shim/wrapper_support.hpp"', ""]
    for f in funcs:
        if not f.has("custom"):
            c.append(gen_c_wrapper(f))
            c.append("")
    write(out / "c_wrappers.cpp", "\n".join(c))

    fo = ["// Generated by tools/generate_wrappers.py from mpi_functions.def. Do not edit.",
          "// Open MPI's Fortran layer calls PMPI_* directly, so the shim provides mpi_*_ itself.", ""]
    fortran_done = set()
    if a.flavour == "openmpi":
        fo.append('#include "pmpi-layer/src/fortran/fortran_support.hpp"')
        fo.append('#include "pmpi-layer/src/shim/wrapper_support.hpp"')
        fo.append("")
        for f in funcs:
            if fortran_supported(f):
                fo.append(gen_fortran(f))
                fo.append("")
                fortran_done.add(f.name)
            elif f.has("fortran_custom"):
                fortran_done.add(f.name)
    write(out / "fortran_bindings.cpp", "\n".join(fo))

    st = ["/* Generated by tools/generate_wrappers.py. Do not edit.",
          " * MPI functions yadokari does not cover. Each aborts the job with a clear message instead of",
          " * letting the library see a virtual handle. Written without <mpi.h> on purpose: an old-style",
          " * declaration matches any prototype, and a stub never reads its arguments. */",
          "void yadokari_unsupported_call(const char* function, const char* binding);",
          "#define YK_API __attribute__((visibility(\"default\")))", ""]
    for n in unsupported:
        st.append(f'YK_API int {n}() {{ yadokari_unsupported_call("{n}", "C"); return 1; }}')
    fortran_stubs = []
    if a.flavour == "openmpi":
        for n in declared:
            if n in fortran_done or n.endswith(("_f2c", "_c2f", "_f082c", "_c2f08", "_f2f08", "_f082f")):
                continue
            if n in HARMLESS_FORTRAN:
                continue
            fortran_stubs.append(n)
            for symbol in [n.lower() + "_"] + fortran_alias_names(n):
                st.append(f'YK_API void {symbol}() {{ yadokari_unsupported_call("{n}", "Fortran"); }}')
    f08_stubs = []
    if a.flavour == "openmpi" and a.fortran_imports:
        provided = {sym for n in fortran_done for sym in [n.lower() + "_"] + fortran_alias_names(n)}
        provided |= {sym for n in fortran_stubs for sym in [n.lower() + "_"] + fortran_alias_names(n)}
        for symbol, name in f08_entry_points(pathlib.Path(a.fortran_imports).read_text().split()):
            if symbol in provided or name in HARMLESS_FORTRAN:
                continue
            f08_stubs.append(name)
            st.append(f'YK_API void {symbol}() {{ yadokari_unsupported_call("{name}", "Fortran"); }}')
    write(out / "unsupported.c", "\n".join(st) + "\n")

    cov = [f"# yadokari MPI coverage for {a.flavour} (generated)", "", "## covered"]
    for f in funcs:
        tags = []
        if f.has("custom"):
            tags.append("hand-written")
        if a.flavour == "openmpi":
            tags.append("fortran" if f.name in fortran_done else "C only")
        cov.append(f"{f.name}\t{f.section}\t{' '.join(tags)}")
    cov += ["", "## unsupported (abort with a clear message)"] + unsupported
    if a.flavour == "openmpi":
        cov += ["", "## unsupported from Fortran"] + fortran_stubs
        cov += ["", "## unsupported from `use mpi_f08` only (not in mpi.h)"] + f08_stubs
    write(out / "coverage.txt", "\n".join(cov) + "\n")


def write(path, text):
    if path.exists() and path.read_text() == text:
        return  # keep the timestamp: no needless rebuilds
    path.write_text(text)


if __name__ == "__main__":
    sys.exit(main())
