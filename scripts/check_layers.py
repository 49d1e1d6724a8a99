#!/usr/bin/env python3
"""check_layers.py - the layer order holds: no include and no symbol points upward,
and no two objects depend on each other in a circle.

Usage: check_layers.py BUILD_DIR LAYER... (lowest first, as the Makefile's LAYERS).
Checks, each failure one line naming both files:
  1. every `#include "x"` in a layer's sources resolves to a file of the same layer
     or a lower one (a header found in no layer is an error: it would be a guess);
  2. examples/ (what users write) includes only the lowest layer (the public header);
  3. with the objects in BUILD_DIR (`nm`): no object uses a symbol defined in a higher
     layer, and the graph "object A uses a symbol of object B" has no cycle. A layer's
     NAME.py built into the binary (the Makefile's PY_EMBED: BUILD_DIR/gen/NAME_py.o,
     symbol NAME_py) counts in the layer of its .py, whose NAME no other layer repeats.
Exit 0 when all hold, 1 otherwise; prints "layers: ok (...)" or the violations."""
import os, re, subprocess, sys
from collections import defaultdict

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SOURCES = ('.c', '.h', '.cu', '.cuh')


def layer_files(layers):
    files = {}
    for rank, d in enumerate(layers):
        for name in sorted(os.listdir(d)):
            if name.endswith(SOURCES):
                files[os.path.join(d, name)] = rank
    return files


def resolve(path, inc, layers):
    for d in [os.path.dirname(path)] + layers:
        cand = os.path.normpath(os.path.join(d, inc))
        if os.path.exists(cand):
            return cand
    return None


def check_includes(files, layers, errors):
    for path, rank in files.items():
        for inc in INCLUDE.findall(open(path, encoding='utf-8').read()):
            target = resolve(path, inc, layers)
            if target is None:
                # The generated worker string and cJSON are outside the layers.
                if inc not in ('cJSON.h',):
                    errors.append(f'{path}: includes "{inc}", found in no layer')
                continue
            trank = files.get(target)
            if trank is None:
                errors.append(f'{path}: includes {target}, which is in no layer')
            elif trank > rank:
                errors.append(f'{path} ({layers[rank]}) includes {target} ({layers[trank]}): upward')
    for root, _, names in os.walk('examples'):
        for name in names:
            if not name.endswith(SOURCES):
                continue
            path = os.path.join(root, name)
            for inc in INCLUDE.findall(open(path, encoding='utf-8').read()):
                target = resolve(path, inc, layers[:1])
                if target is None or (target not in files and not target.startswith(root)):
                    errors.append(f'{path}: includes "{inc}"; examples include only {layers[0]}/')


def nm(obj):
    out = subprocess.run(['nm', obj], capture_output=True, text=True, check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in 'TDBRVWGS' and parts[1].isupper():
            defined.add(parts[2])
        elif len(parts) == 2 and parts[0] == 'U':
            used.add(parts[1])
    return defined, used


def embedded_objects(build, layers, errors):
    """{LAYER/NAME.py: (rank, BUILD/gen/NAME_py.o)} for each .py built into the binary."""
    found, seen = {}, {}
    for rank, d in enumerate(layers):
        for name in sorted(os.listdir(d)):
            if not name.endswith('.py'):
                continue
            path = os.path.join(d, name)
            if name in seen:   # one symbol NAME_py for both: the lower one keeps it here
                errors.append(f'{path}: {seen[name]} has the same name (embedded Python needs unique names)')
                continue
            seen[name] = path
            obj = os.path.join(build, 'gen', name[:-3] + '_py.o')
            if os.path.exists(obj):
                found[path] = (rank, obj)
    return found


def check_objects(build, files, layers, errors):
    objs = {}
    for path, rank in files.items():
        if path.endswith(('.c', '.cu')):
            obj = os.path.join(build, os.path.splitext(path)[0] + '.o')
            if os.path.exists(obj):
                objs[path] = (rank, *nm(obj))
    for path, (rank, obj) in embedded_objects(build, layers, errors).items():
        objs[path] = (rank, *nm(obj))
    owner = {}
    for path, (_, defined, _) in objs.items():
        for sym in defined:
            owner.setdefault(sym, path)
    graph = defaultdict(set)
    for path, (rank, _, used) in objs.items():
        for sym in used:
            dep = owner.get(sym)
            if dep is None or dep == path:
                continue
            graph[path].add(dep)
            drank = objs[dep][0]
            if drank > rank:
                errors.append(f'{path} ({layers[rank]}) uses {sym} of {dep} ({layers[drank]}): upward')
    for cycle in cycles(graph):
        errors.append('circle: ' + ' -> '.join(cycle + [cycle[0]]))
    return len(objs)


def cycles(graph):
    """Strongly connected components of more than one node (Tarjan), as lists."""
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
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
                found.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def main():
    if len(sys.argv) < 3:
        sys.exit('usage: check_layers.py BUILD_DIR LAYER...')
    build, layers = sys.argv[1], sys.argv[2:]
    files = layer_files(layers)
    errors = []
    check_includes(files, layers, errors)
    nobj = check_objects(build, files, layers, errors) if os.path.isdir(build) else 0
    for e in errors:
        print(e)
    if errors:
        print(f'layers: {len(errors)} violation(s)')
        return 1
    print(f'layers: ok ({len(files)} files in {len(layers)} layers, {nobj} objects)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
