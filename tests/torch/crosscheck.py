"""PyTorch cross-check: random slice_scatter cases on shared storages, computed by
torch (functional slice_scatter, then written back through the input view), and
compared bit for bit with `ssfuzz replay --dump`'s reference storages.

usage: crosscheck.py SSFUZZ WORKDIR [COUNT] [SEED]
Prints "N cases agree ..." or the first disagreement; exit 0 agree, 1 disagree, 77 no torch.
"""
import json
import os
import random
import struct
import subprocess
import sys

try:
    import torch
except ImportError:
    print("skip: torch is not importable by", sys.executable)
    sys.exit(77)

DTYPES = {
    "bool": (torch.bool, 1), "uint8": (torch.uint8, 1), "int8": (torch.int8, 1),
    "int16": (torch.int16, 2), "int32": (torch.int32, 4), "int64": (torch.int64, 8),
    "float16": (torch.float16, 2), "bfloat16": (torch.bfloat16, 2), "float32": (torch.float32, 4),
    "float64": (torch.float64, 8), "complex64": (torch.complex64, 8), "complex128": (torch.complex128, 16),
}


def storage_from_bytes(raw, dtype):
    t = torch.frombuffer(bytearray(raw), dtype=torch.uint8)
    return t.view(dtype) if dtype != torch.bool else t.view(torch.bool)


def to_bytes(t):
    return bytes(t.contiguous().view(torch.uint8).numpy().tobytes())


def random_bytes(rng, n, es, name):
    if name == "bool":
        return bytes(rng.randrange(2) for _ in range(n))
    return bytes(rng.randrange(256) for _ in range(n * es))


def hex_elems(raw, es):
    return ["0x" + raw[i:i + es][::-1].hex() for i in range(0, len(raw), es)]


def decode_value(v, name, es):
    """One dumped element (number, [re, im] or hex) back to its bytes."""
    if isinstance(v, str):
        return int(v, 16).to_bytes(es, "little")
    if isinstance(v, bool):
        return bytes([int(v)])
    if isinstance(v, list):
        fmt = "<ff" if name == "complex64" else "<dd"
        return struct.pack(fmt, float(v[0]), float(v[1]))
    if name in ("float16", "bfloat16", "float32", "float64"):
        return to_bytes(torch.tensor([float(v)], dtype=DTYPES[name][0]))
    return int(v).to_bytes(es, "little", signed=int(v) < 0)


def random_layout(rng, ndim):
    """Sizes, strides and offset of a non-overlapping view, plus its storage numel."""
    sizes = [rng.choice([0, 1, 1, 2, 3, 4, 5]) if rng.random() < 0.15 else rng.randint(1, 5) for _ in range(ndim)]
    order = list(range(ndim))
    rng.shuffle(order)                      # permuted layouts
    strides = [0] * ndim
    st = 1
    for d in reversed(order):
        strides[d] = st * rng.choice([1, 1, 1, 2])   # padded strides now and then
        st = strides[d] * max(sizes[d], 1) + rng.choice([0, 0, 1])
    offset = rng.randint(0, 3)
    extent = offset + sum((s - 1) * t for s, t in zip(sizes, strides)) if all(sizes) else offset
    return sizes, strides, offset, extent + 1 + rng.randint(0, 3)


def make_case(rng):
    name = rng.choice(list(DTYPES))
    dtype, es = DTYPES[name]
    ndim = rng.randint(1, 4)
    sizes, strides, offset, numel = random_layout(rng, ndim)
    dim = rng.randrange(-ndim, ndim)
    size = sizes[dim]
    pick = lambda: rng.choice([None, 0, 1, -1, size, size + 2, -size - 1, rng.randint(-size - 2, size + 2)])
    start, end, step = pick(), pick(), rng.choice([1, 1, 2, 3, 7])
    raw_in = random_bytes(rng, numel, es, name)
    S = storage_from_bytes(raw_in, dtype)
    inp = S.as_strided(sizes, strides, offset)
    idx = [slice(None)] * ndim
    idx[dim] = slice(start, end, step)
    slice_shape = list(inp[tuple(idx)].shape)
    case = {"format": "ssfuzz-case", "version": 1, "dtype": name, "storage": {"numel": numel},
            "input": {"offset": offset, "sizes": sizes, "strides": strides},
            "dim": dim, "start": start, "end": end, "step": step}
    if rng.random() < 0.3:                   # separate storage
        src_numel = max(1, 1 + rng.randint(0, 2) + int(torch.tensor(slice_shape).prod()))
        raw_src = random_bytes(rng, src_numel, es, name)
        src_t = storage_from_bytes(raw_src, dtype)
        cst = [1] * ndim
        for d in range(ndim - 2, -1, -1):
            cst[d] = cst[d + 1] * max(slice_shape[d + 1], 1)
        src = src_t.as_strided(slice_shape, cst, 0)
        case["src"] = {"storage": "separate", "offset": 0, "sizes": slice_shape, "strides": cst}
        case["src_storage"] = {"numel": src_numel}
        case["values"] = {"input": hex_elems(raw_in, es), "src": hex_elems(raw_src, es)}
    else:                                    # aliased: any strides (stride 0 too) inside the storage
        sst = [rng.choice([0, 1, 2, 3, strides[d]]) for d in range(ndim)]
        ext = sum((s - 1) * t for s, t in zip(slice_shape, sst)) if all(slice_shape) else 0
        soff = rng.randint(0, max(0, numel - 1 - ext)) if ext < numel else 0
        if ext >= numel:
            sst, soff = [0] * ndim, 0
        src = S.as_strided(slice_shape, sst, soff)
        case["src"] = {"storage": "input", "offset": soff, "sizes": slice_shape, "strides": sst}
        case["values"] = {"input": hex_elems(raw_in, es)}
        raw_src = None
    out = torch.slice_scatter(inp, src, dim, start, end, step)   # step passed explicitly
    inp.copy_(out)
    return case, name, es, to_bytes(S), raw_src


def main():
    ssfuzz, work = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 300
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 1234)
    cases_dir, dump_dir = os.path.join(work, "cases"), os.path.join(work, "dump")
    os.makedirs(cases_dir, exist_ok=True)
    expected = {}
    for i in range(count):
        case, name, es, final_in, final_src = make_case(rng)
        base = "tc%04d" % i
        with open(os.path.join(cases_dir, base + ".json"), "w") as f:
            json.dump(case, f)
        expected[base] = (name, es, final_in, final_src)
    r = subprocess.run([ssfuzz, "replay", "--quiet", "--dump", dump_dir, cases_dir],
                       capture_output=True, text=True)
    if r.returncode != 0:
        print("ssfuzz replay exited %d:\n%s%s" % (r.returncode, r.stdout[-3000:], r.stderr[-3000:]))
        return 1
    for base, (name, es, final_in, final_src) in expected.items():
        with open(os.path.join(dump_dir, base + ".reference.json")) as f:
            dump = json.load(f)
        for which, want in (("input", final_in), ("src", final_src)):
            if want is None:
                continue
            got = b"".join(decode_value(v, name, es) for v in dump["storages"][which])
            if got != want:
                k = next(i for i in range(0, len(want), es) if got[i:i + es] != want[i:i + es]) // es
                print("%s (%s) %s storage differs at element %d: torch %s, ssfuzz %s" %
                      (base, name, which, k, want[k * es:(k + 1) * es][::-1].hex(), got[k * es:(k + 1) * es][::-1].hex()))
                return 1
    print("%d cases agree with torch %s bit for bit" % (count, torch.__version__))
    return 0


if __name__ == "__main__":
    sys.exit(main())
