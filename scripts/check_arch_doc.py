#!/usr/bin/env python3
"""check_arch_doc.py DOC [TARGETS] - what docs/architecture.md claims that a machine can check.

Run from the repository root. Prints one line per check, "ok NAME" or "not ok NAME: why"
(tests/cli/test_architecture.sh counts them), and exits 1 when any fails.

  files-named     every source file under harness/, reference/, kernels/, include/
                  (*.c, *.h, *.cu, *.cuh, *.py) is named: by its path anywhere, or by its
                  bare name in a table row whose first cell names its folder
                  (`harness/core/ss_program.h`, `ss_program.c`); a .h is also named by
                  its .c (the page says a .c has its .h beside it)
  paths-exist     every path-like token (NAME.c/.h/.py/.cu/.cuh/.sh/.md/.mk/.yml/.sbatch)
                  names a file of the tree: a path from the root (or, in a Markdown link,
                  from docs/); a bare name in a first cell in that row's folder, elsewhere
                  anywhere in the tree; placeholders in capitals (NAME.py) are skipped
  functions-exist every backticked ss_*/SS_*/fz_*/cli_*/CLI_* identifier, and every backticked
                  span that is one identifier with an underscore (`judge_write`, `run_batch`),
                  is in the sources
                  (harness/, reference/, kernels/, include/, tests/, the Makefiles)
  rules-located   in "Where each rule lives", each backticked identifier is in one of the
                  files its row names
  layer-order     the layer table's folders are the Makefile's LAYERS, in order (LAYERS
                  passed in the environment variable LAYERS)
  torch-count     the torch engine's row says "its N targets (`torch:MODE:SPELLING`, M modes
                  by S spellings": TARGETS (the output of `ssfuzz targets`) has N torch:
                  targets, M modes and S spellings
"""
import os
import re
import sys

EXTS = ("c", "h", "py", "cu", "cuh", "sh", "md", "mk", "yml", "sbatch")
SRC_DIRS = ("harness", "reference", "kernels", "include")
SRC_EXTS = (".c", ".h", ".cu", ".cuh", ".py")
IDENT_DIRS = ("harness", "reference", "kernels", "include", "tests")
WORDS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve "
                                     "thirteen fourteen fifteen sixteen".split())}
PATH_RE = re.compile(r"(?<![\w/.*-])((?:\.\./)?[\w.*-]+(?:/[\w.*-]+)*\.(?:%s))(?![\w])" % "|".join(EXTS))
IDENT_RE = re.compile(r"\b((?:ss|SS|fz|cli|CLI)_[A-Za-z0-9_]+)\b(?!\.(?:%s)\b)" % "|".join(EXTS))

failures = 0


def report(name, problems):
    global failures
    if problems:
        failures += 1
        shown = "; ".join(problems[:6]) + (" (and %d more)" % (len(problems) - 6) if len(problems) > 6 else "")
        print("not ok %s: %s" % (name, shown))
    else:
        print("ok %s" % name)


def tree_files():
    out = []
    for root, dirs, names in os.walk("."):
        dirs[:] = [d for d in dirs if d != ".git" and not d.startswith("build")]
        for n in names:
            out.append(os.path.normpath(os.path.join(root, n)))
    return out


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def backticked(text):
    return re.findall(r"`([^`]+)`", text)


def row_folder(first):
    """The folder a table row's first cell names: that of its first path with a slash."""
    for tok in backticked(first):
        tok = tok.strip()
        if "/" in tok:
            return tok if tok.endswith("/") else os.path.dirname(tok) + "/"
    return None


def is_placeholder(tok):
    stem = os.path.basename(tok).split(".")[0]
    return bool(re.fullmatch(r"[A-Z][A-Z_]*", stem))


def expand(path, files):
    if "*" in path:
        pat = re.compile("^" + re.escape(path).replace(r"\*", r"[^/]*") + "$")
        return [f for f in files if pat.match(f)]
    return [path] if path in files else []


def main():
    doc_path = sys.argv[1]
    targets_path = sys.argv[2] if len(sys.argv) > 2 else None
    text = open(doc_path, encoding="utf-8").read()
    lines = text.splitlines()
    files = set(tree_files())
    by_base = {}
    for f in files:
        by_base.setdefault(os.path.basename(f), []).append(f)

    # Names: full paths anywhere; bare names in rows whose first cell names a folder.
    named = set()
    bad_paths = []
    for m in PATH_RE.finditer(text):
        tok = m.group(1)
        if "/" in tok and not tok.startswith("../"):
            named.update(expand(tok, files) or [tok])
    for ln, line in enumerate(lines, 1):
        in_table = line.startswith("|")
        folder = row_folder(cells(line)[0]) if in_table else None
        first_end = 1 + len(line.split("|")[1]) if in_table else 0   # the first cell's span
        link_targets = set(re.findall(r"\]\(([^)#\s]+)", line))
        for m in PATH_RE.finditer(line):
            tok = m.group(1)
            if is_placeholder(tok):
                continue
            if "/" in tok or tok in link_targets:
                cands = [tok] if "/" in tok else []
                if tok in link_targets or tok.startswith("../"):
                    cands.append(os.path.normpath(os.path.join(os.path.dirname(doc_path) or ".", tok)))
                    cands.append(os.path.normpath(os.path.join("docs", tok)))
                if not any(expand(c, files) for c in cands):
                    bad_paths.append("line %d: %s" % (ln, tok))
                continue
            if folder:
                here = expand(folder + tok, files)
                if here:
                    named.update(here)
                    continue
                if m.start() < first_end:
                    bad_paths.append("line %d: %s is not in %s" % (ln, tok, folder))
                    continue
            if not expand(tok, files) and tok not in by_base and not any(
                    re.fullmatch(re.escape(tok).replace(r"\*", r"[^/]*"), b) for b in by_base):
                bad_paths.append("line %d: %s (no such file in the tree)" % (ln, tok))

    unnamed = []
    for f in sorted(files):
        if f.split("/")[0] not in SRC_DIRS or not f.endswith(SRC_EXTS):
            continue
        if f in named or (f.endswith(".h") and f[:-2] + ".c" in named):
            continue
        unnamed.append(f)
    report("files-named: every source file under %s is named" % ", ".join(d + "/" for d in SRC_DIRS),
           ["%s is not named" % f for f in unnamed])
    report("paths-exist: every file the page names exists", bad_paths)

    # Identifiers against the sources.
    sources = {}
    for f in files:
        if (f.split("/")[0] in IDENT_DIRS and f.endswith(SRC_EXTS)) or f == "Makefile" or f.endswith(".mk"):
            try:
                sources[f] = open(f, encoding="utf-8", errors="replace").read()
            except OSError:
                pass
    words = set()
    for body in sources.values():
        words.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", body))
    prose = "\n".join(l for l in lines if not l.startswith("```"))   # fences would pair backticks wrongly
    idents = set()
    for span in backticked(prose):
        idents.update(IDENT_RE.findall(span))
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*_[A-Za-z0-9_]*", span):
            idents.add(span)
    idents = sorted(idents)
    report("functions-exist: every backticked function or macro name is in the sources (%d names)"
           % len(idents), ["%s is in no source" % i for i in idents if i not in words])

    # The rules table: each identifier in a file its row names.
    rule_rows, in_rules = [], False
    for ln, line in enumerate(lines, 1):
        if line.startswith("## "):
            in_rules = line.strip() == "## Where each rule lives"
        elif in_rules and line.startswith("|") and not line.startswith("|---") and not line.startswith("| rule |"):
            rule_rows.append((ln, line))
    problems = []
    if not rule_rows:
        problems.append("no \"## Where each rule lives\" table")
    for ln, line in rule_rows:
        where = cells(line)[-1]
        row_files = []
        for tok in backticked(where):
            if PATH_RE.fullmatch(tok) or tok == "Makefile":
                row_files += expand(tok, files) or by_base.get(tok, [])
        bodies = [open(f, encoding="utf-8", errors="replace").read() for f in row_files]
        if not row_files:
            problems.append("line %d names no file" % ln)
        for tok in backticked(where):
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", tok) or tok == "Makefile":
                continue
            if not any(re.search(r"\b%s\b" % re.escape(tok), b) for b in bodies):
                problems.append("line %d: %s is in none of %s" % (ln, tok, ", ".join(row_files) or "its files"))
    report("rules-located: each rule's names are in the files its row names (%d rules)" % len(rule_rows), problems)

    # The layer table against the Makefile's LAYERS.
    layers = os.environ.get("LAYERS", "").split()
    if layers:
        table, in_layers = [], False
        for line in lines:
            if line.startswith("| layer folder |"):
                in_layers = True
            elif in_layers and line.startswith("|") and not line.startswith("|---"):
                table.append(backticked(cells(line)[0])[0].rstrip("/"))
            elif in_layers and not line.startswith("|"):
                break
        report("layer-order: the layer table is the Makefile's LAYERS in order",
               [] if table == layers else ["table %s, LAYERS %s" % (" ".join(table), " ".join(layers))])
    else:
        print("skip layer-order: LAYERS not given")

    # Numbers a binary confirms.
    if targets_path:
        listed = [l.split()[0] for l in open(targets_path) if l.startswith("torch:")]
        m = re.search(r"its (\d+) targets \(`torch:MODE:SPELLING`, (\w+) modes by (\w+) spellings", text)
        if not m:
            report("torch-count: the torch row's counts", ["no \"its N targets (`torch:MODE:SPELLING`, "
                                                           "M modes by S spellings\" in the page"])
        else:
            n, modes, spellings = int(m.group(1)), WORDS.get(m.group(2), -1), WORDS.get(m.group(3), -1)
            got = (len(listed), len({t.split(":")[1] for t in listed}), len({t.split(":")[2] for t in listed}))
            report("torch-count: %d torch targets, %d modes by %d spellings, as `ssfuzz targets` lists" % (
                n, modes, spellings), [] if (n, modes, spellings) == got else
                ["`ssfuzz targets` lists %d torch targets, %d modes, %d spellings" % got])
    else:
        print("skip torch-count: no `ssfuzz targets` output given")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
