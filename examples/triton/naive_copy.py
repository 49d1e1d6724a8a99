"""naive_copy.py - a tiled Triton copy kernel for x[..., start:end:step] = src, the
way it is written first: each program loads a block of src and stores it into the
slice, with no staging. Blocks run one after another, so when src overlaps the
written slice (x[1:] = x[:-1]) a later block reads what an earlier one already
wrote: with blocks of 8 elements, element 9 of a 16-element shift is wrong.

    ssfuzz --py-kernel examples/triton/naive_copy.py fuzz -t naive_copy:tiled --time 30

On the CPU ssfuzz runs it through Triton's interpreter (TRITON_INTERPRET=1, set
by ssfuzz before Triton is imported); naive_copy:tiled@cuda runs it on a GPU.
"""
import torch
import triton
import triton.language as tl

BLOCK = 8
# Same-size integer dtypes: the kernel moves bits, whatever the tensors hold.
_BITS = {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


@triton.jit
def copy_kernel(dst, src, n, dst_offsets, src_offsets, BLOCK: tl.constexpr):
    """One block of the copy: load BLOCK elements of src, then store them into dst."""
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = i < n
    values = tl.load(src + tl.load(src_offsets + i, mask=mask), mask=mask)
    tl.store(dst + tl.load(dst_offsets + i, mask=mask), values, mask=mask)


def offsets(t):
    """The element offset of each of t's indices, in row-major order (any rank)."""
    out = torch.zeros((), dtype=torch.int64, device=t.device)
    for size, stride in zip(t.shape, t.stride()):
        out = out.unsqueeze(-1) + torch.arange(size, device=t.device) * stride
    return out.reshape(-1)


def as_bits(t):
    """t viewed as integers of its element size (complex128: two float64 each)."""
    if t.element_size() not in _BITS:
        t = torch.view_as_real(t)
    return t.view(_BITS[t.element_size()])


def written_view(x, dim, start, end, step):
    """The slice slice_scatter writes: x[..., start:end:step] along dim."""
    return x[(slice(None),) * (dim % x.dim()) + (slice(start, end, step),)]


def launch_copy(dst, src):
    """dst = src, block after block in program order; the views' index math is
    done once on the host (offsets), so the kernel is the same for every rank."""
    dst, src = as_bits(dst), as_bits(src)
    n = dst.numel()
    if n:
        copy_kernel[(triton.cdiv(n, BLOCK),)](dst, src, n, offsets(dst), offsets(src), BLOCK=BLOCK)


def tiled(x, src, dim, start, end, step):
    launch_copy(written_view(x, dim, start, end, step), src)


SSFUZZ_KERNELS = {"tiled": tiled}
