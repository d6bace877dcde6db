#!/usr/bin/env python3
"""The layers of docs/architecture.md, checked on the source tree:

  common <- protocol <- {checkpoint, scheduler} <- pmpi-layer, runtime

Every quoted include of a repository file names its path from the project root (one include
root). A file may include only from its own layer or a lower one, and no two files include each
other (directly or in a longer loop; a .cpp and its .hpp count as one unit). With --shim LIB...,
the shim libraries must not contain front-end code (the coordinator, the CLI, agents, the
supervisor).

Usage: check_layers.py SOURCE_DIR [--shim LIB ...]
Prints one line per offence and exits 1 if there is any."""
import os
import re
import subprocess
import sys

# The layer of each top-level folder, lowest first. Tests, examples and benchmarks sit on top.
LAYER = {"common": 0, "protocol": 1, "checkpoint": 2, "scheduler": 2, "pmpi-layer": 3, "runtime": 3}
# Folders above that may not see each other (the shim and the front end are separate programs).
APART = {("pmpi-layer", "runtime"), ("runtime", "pmpi-layer")}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def every_source(src):
    """Every tracked C/C++ file, tests, examples and benchmarks included."""
    return subprocess.run(["git", "-C", src, "ls-files", "*.cpp", "*.hpp", "*.c", "*.h", "*.S"],
                          capture_output=True, text=True, check=True).stdout.split()


def tracked_sources(src):
    out = subprocess.run(["git", "-C", src, "ls-files", "*.cpp", "*.hpp", "*.c", "*.h"],
                         capture_output=True, text=True, check=True).stdout.split()
    return [f for f in out if f.split("/")[0] in LAYER]


# Quoted includes that are not repository paths: the public C API header (included as users include
# it) and headers generated into the build tree.
NOT_OURS = {"yadokari.h", "function_ids.hpp"}


def resolve(including, target, src):
    """The repository path an include names, or None when it is not one of our files. An include
    written relative to the including file or to a module folder is returned as ("offence", path)."""
    if os.path.isfile(os.path.join(src, target)) and not target.startswith("."):
        return target
    if target in NOT_OURS:
        return None
    here = os.path.normpath(os.path.join(os.path.dirname(including), target))
    if os.path.isfile(os.path.join(src, here)):
        return ("offence", here)
    for root in ("runtime", "checkpoint", "pmpi-layer/src", "checkpoint/memory/src"):
        path = root + "/" + target
        if os.path.isfile(os.path.join(src, path)):
            return ("offence", path)
    return None


def unit(path, units):
    """A .cpp and its .hpp are one unit; so are the parts of a unit split over files named after
    it (coordinator_images.cpp is part of coordinator)."""
    stem = os.path.splitext(path)[0]
    head, _, _ = stem.rpartition("_")
    while head:
        if head in units:
            return head
        head, _, _ = head.rpartition("_")
    return stem


def main():
    src = sys.argv[1]
    shims = sys.argv[sys.argv.index("--shim") + 1:] if "--shim" in sys.argv else []
    offences = []
    edges = {}
    sources = tracked_sources(src)
    units = {os.path.splitext(f)[0] for f in sources}
    for f in every_source(src):
        with open(os.path.join(src, f), errors="replace") as text:
            for target in INCLUDE.findall(text.read()):
                found = resolve(f, target, src)
                if isinstance(found, tuple):
                    offences.append(f'{f}: includes "{target}": write "{found[1]}" (one include root)')
    for f in sources:
        if "/tests/" in f or "/test/" in f:
            continue
        with open(os.path.join(src, f), errors="replace") as text:
            includes = INCLUDE.findall(text.read())
        for target in includes:
            path = resolve(f, target, src)
            if path is None or isinstance(path, tuple):
                continue
            a, b = f.split("/")[0], path.split("/")[0]
            if (a, b) in APART:
                offences.append(f"{f}: includes {path}: {a} must not see {b}")
            elif LAYER[b] > LAYER[a]:
                offences.append(f"{f}: includes {path}: {a} is below {b} (docs/architecture.md, layers)")
            if unit(f, units) != unit(path, units):
                edges.setdefault(unit(f, units), set()).add(unit(path, units))

    # Include cycles between units (Tarjan's strongly connected components).
    index, low, stack, on_stack, counter = {}, {}, [], set(), [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                offences.append("include cycle: " + " <-> ".join(sorted(component)))

    for v in sorted(edges):
        if v not in index:
            visit(v)

    # The shim links no front-end code: none of its symbols (local ones included) belong there.
    front_end = re.compile(r"yadokari::(control|cli|frontend|agent|sim|launch)::")
    for lib in shims:
        symbols = subprocess.run(["nm", "-C", lib], capture_output=True, text=True, check=True).stdout
        found = sorted({m.group(0) for m in front_end.finditer(symbols)})
        if found:
            offences.append(f"{os.path.basename(lib)}: links front-end code ({', '.join(found)})")
        if not symbols.strip():
            offences.append(f"{os.path.basename(lib)}: no symbols to check (stripped?)")

    for line in offences:
        print(line)
    if offences:
        return 1
    print(f"layers: {len(edges)} units, no upward include, no cycle; {len(shims)} shim(s) free of front-end code")
    return 0


if __name__ == "__main__":
    sys.exit(main())
