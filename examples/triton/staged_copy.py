"""staged_copy.py - naive_copy.py's tiled Triton copy, made correct: when src shares
the written view's storage, it is first copied into a temporary (staged), so no
block can read what another block already wrote; and a view that maps two of its
indices onto one element (internal overlap) is refused, as PyTorch refuses it.

    ssfuzz --py-kernel examples/triton/staged_copy.py fuzz -t staged_copy:staged --time 60

The kernel is naive_copy.py's, unchanged: the fix is in how it is launched.
"""
import torch
import triton
import triton.language as tl

BLOCK = 8
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


def has_internal_overlap(t):
    """True when two indices of t reach one element (a stride-0 dim, colliding strides)."""
    o = offsets(t)
    return o.unique().numel() < o.numel()


def staged(x, src, dim, start, end, step):
    if has_internal_overlap(x):
        raise ValueError("x has internal overlap: writing it in place has no defined result")
    dst = written_view(x, dim, start, end, step)
    if src.untyped_storage().data_ptr() == dst.untyped_storage().data_ptr():
        tmp = torch.empty(src.shape, dtype=src.dtype, device=src.device)
        launch_copy(tmp, src)                # stage: read all of src before any write
        src = tmp
    launch_copy(dst, src)


SSFUZZ_KERNELS = {"staged": staged}
