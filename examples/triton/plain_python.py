"""plain_python.py - two kernels in plain Python and PyTorch (no Triton), for any torch:

  loop   an element-by-element loop over the written view, in row-major order: the
         first thing one writes, and wrong whenever src overlaps what it already wrote
         (x[1:] = x[:-1] copies x[0] everywhere);
  clone  the fix: read all of src (clone) before writing, and refuse a view with
         internal overlap, as PyTorch does.

    ssfuzz --py-kernel examples/triton/plain_python.py fuzz -t plain_python:loop --time 20
"""
import itertools

import torch


def written_view(x, dim, start, end, step):
    """The slice slice_scatter writes: x[..., start:end:step] along dim."""
    return x[(slice(None),) * (dim % x.dim()) + (slice(start, end, step),)]


def loop(x, src, dim, start, end, step):
    dst = written_view(x, dim, start, end, step)
    for index in itertools.product(*map(range, dst.shape)):
        dst[index] = src[index]


def has_internal_overlap(t):
    """True when two indices of t reach one element (a stride-0 dim, colliding strides)."""
    if t.numel() < 2:
        return False
    offsets = torch.zeros((), dtype=torch.int64, device=t.device)
    for size, stride in zip(t.shape, t.stride()):
        offsets = offsets.unsqueeze(-1) + torch.arange(size, device=t.device) * stride
    return offsets.unique().numel() < t.numel()


def clone(x, src, dim, start, end, step):
    if has_internal_overlap(x):
        raise ValueError("x has internal overlap: writing it in place has no defined result")
    written_view(x, dim, start, end, step).copy_(src.clone())


SSFUZZ_KERNELS = {"loop": loop, "clone": clone}
