#!/usr/bin/env python3
"""Reads every #include "..." under src/ and checks the layering of the
project's design document (DESIGN.md section 1, kept with the project's
shared documents, not in this repository): a module includes only modules
below it (or itself),
never another module's private headers (*_priv.h), and no group of files
includes each other round in a cycle.

A file's unit is its path without the extension (src/heap/heap.c and
src/heap/heap.h are one unit); a unit depends on every unit whose header it
includes.  A function declared in one module's header and defined in
another's hides an include (its callers depend on the definer without
saying so): a fault, and an edge from the header to the definer.
Prints each fault, then the counts; exits 1 on any fault.

usage: check_layers.py [SRC_DIR]   (default: the src/ beside tests/)"""
import os
import re
import sys

# Lowest first: a module may include the ones before it.
LAYERS = ["core", "bootstrap", "gpu", "heap", "transport", "proxy", "device", "rma", "sync",
          "coll", "partitioned", "init"]
RANK = {m: i for i, m in enumerate(LAYERS)}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# Prototypes in headers and definitions in sources of gshmemi_ functions.
DECL = re.compile(r'^[A-Za-z_][^;{}()#]*?\b(gshmemi_\w+)\s*\([^;{]*\)\s*'
                  r'(?:__attribute__\(\([^;]*\)\))?\s*;', re.M)
DEFN = re.compile(r'^(?!static)[A-Za-z_][^;{}()#=]*?\b(gshmemi_\w+)\s*\([^;{]*\)\s*\{', re.M)


def scan(src):
    """{unit: set of units it includes}, the raw (file, header) pairs, and
    {function: (header declaring it, file defining it)}."""
    deps, edges, decls, defs = {}, [], {}, {}
    for root, _, files in os.walk(src):
        for f in sorted(files):
            if not f.endswith((".c", ".h", ".cu", ".cuh")):
                continue
            path = os.path.join(root, f)
            rel = os.path.relpath(path, src)
            unit = os.path.splitext(rel)[0]
            deps.setdefault(unit, set())
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
                for m in (DECL if f.endswith((".h", ".cuh")) else DEFN).finditer(text):
                    (decls if f.endswith((".h", ".cuh")) else defs).setdefault(m.group(1), rel)
                for inc in INCLUDE.findall(text):
                    if "/" not in inc or not os.path.exists(os.path.join(src, inc)):
                        continue  # gshmem_config.h and the like
                    target = os.path.splitext(inc)[0]
                    edges.append((rel, inc))
                    if target != unit:
                        deps[unit].add(target)
    where = {fn: (h, defs[fn]) for fn, h in decls.items() if fn in defs}
    for header, source in where.values():
        if header.split("/")[0] != source.split("/")[0]:
            deps.setdefault(os.path.splitext(header)[0], set()).add(os.path.splitext(source)[0])
    return deps, edges, where


def cycles(deps):
    """Strongly connected components of more than one unit (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(deps.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(deps):
        if v not in index:
            visit(v)
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", "src")
    deps, edges, where = scan(src)
    faults, upward, private, hidden = [], 0, 0, 0
    for rel, inc in edges:
        frm, to = rel.split("/")[0], inc.split("/")[0]
        if frm not in RANK:
            faults.append(f"{rel}: module '{frm}' is not in the layer list "
                          "(LAYERS in tests/unit/check_layers.py)")
            continue
        if to not in RANK:
            faults.append(f"{rel}: includes {inc} of module '{to}', not in the layer list")
            continue
        if RANK[to] > RANK[frm]:
            upward += 1
            faults.append(f"{rel}: includes {inc}: {to} is above {frm}")
        if to != frm and os.path.basename(inc).endswith("_priv.h"):
            private += 1
            faults.append(f"{rel}: includes {inc}, private to {to}")
    for fn, (header, source) in sorted(where.items()):
        if header.split("/")[0] != source.split("/")[0]:
            hidden += 1
            faults.append(f"{fn}: declared in {header}, defined in {source}")
    loops = cycles(deps)
    for comp in loops:
        faults.append("cycle: " + " <-> ".join(comp))
    for f in faults:
        print(f)
    print(f"{len(deps)} files' units, {len(edges)} includes between them: {upward} upward, "
          f"{private} into another module's private headers, {hidden} declared in one module and "
          f"defined in another, {len(loops)} cycle(s) "
          f"({sum(len(c) for c in loops)} units)")
    sys.exit(1 if faults else 0)


if __name__ == "__main__":
    main()
