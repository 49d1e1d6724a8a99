/* ss_overlap.c - overlap geometry of validated views: whether a view reaches one storage
 * element twice, and the overlap class of a plan's src and its slice (an exact search for
 * a shared element as a bounded equation, else the views' runs or a bitmap). */
#include <stdlib.h>
#include <string.h>
#include "ss_overlap.h"

/* Bitmaps over at most this many bytes (32768 storage elements) live on the stack. */
#define SMALL_BITMAP 4096

const char *ss_overlap_name(ss_overlap o) {
    switch (o) {
    case SS_OVL_SEPARATE: return "separate";
    case SS_OVL_DISJOINT: return "disjoint";
    case SS_OVL_SAME_VIEW: return "same-view";
    case SS_OVL_PARTIAL: return "partial";
    case SS_OVL_OUTSIDE_SLICE: return "outside-slice";
    }
    return "?";
}

/* Bits [off, off + n) of a bitmap: set them (mode 0), or test whether any is
 * set (mode 1); one byte (up to 8 bits) per step. */
static int bit_run(uint8_t *bits, int64_t off, int64_t n, int mode) {
    while (n > 0) {
        const int shift = (int)(off & 7);
        const int take = n < 8 - shift ? (int)n : 8 - shift;
        const uint8_t mask = (uint8_t)(((1u << take) - 1) << shift);
        if (mode == 0) bits[off >> 3] |= mask;
        else if (bits[off >> 3] & mask) return 1;
        off += take;
        n -= take;
    }
    return 0;
}

/* Exact internal-overlap test. Fast path: strides sorted ascending that each
 * clear the extent of the smaller dims cannot collide. Otherwise, a view with
 * more elements than its span collides (pigeonhole); else mark a bitmap (at
 * most an eighth of the storage's bytes; -1 when it cannot be allocated). */
int ss_view_internal_overlap_n(const ss_view *v, int64_t numel) {
    /* Rank 1 (four cases in ten): two elements or more on a stride that does
     * not move forward, as the passes below decide for one dim. */
    if (v->ndim == 1) return v->sizes[0] > 1 && v->strides[0] <= 0;
    if (numel <= 1) return 0;
    int64_t sz[SS_MAX_NDIM], st[SS_MAX_NDIM];
    int n = 0;
    /* Innermost dim first: row-major strides arrive ascending and the
     * insertion moves nothing (the answer does not depend on dim order). */
    for (int d = v->ndim - 1; d >= 0; d--) {
        if (v->sizes[d] == 1) continue;
        if (v->strides[d] == 0) return 1;
        /* insertion sort by stride */
        int i = n++;
        while (i > 0 && st[i - 1] > v->strides[d]) { st[i] = st[i - 1]; sz[i] = sz[i - 1]; i--; }
        st[i] = v->strides[d];
        sz[i] = v->sizes[d];
    }
    int64_t extent = 0;   /* largest offset reachable with the smaller dims */
    int nested = 1;
    for (int i = 0; i < n; i++) {
        if (st[i] <= extent) { nested = 0; break; }
        extent += (sz[i] - 1) * st[i];   /* bounded by the validated view */
    }
    if (nested) return 0;
    int64_t span = 0;
    for (int i = 0; i < n; i++) span += (sz[i] - 1) * st[i];
    if (numel > span + 1) return 1;
    uint8_t small[SMALL_BITMAP];   /* small views: no allocation on the fuzzing hot path */
    const size_t nbytes = (size_t)(span / 8 + 1);
    uint8_t *seen = nbytes <= sizeof small ? memset(small, 0, nbytes) : calloc(nbytes, 1);
    if (!seen) return -1;   /* no answer: the caller reports out of memory */
    int64_t idx[SS_MAX_NDIM] = {0};
    int64_t off = 0;
    int overlap = 0;
    /* A contiguous innermost dim is marked a run (up to 8 bits) at a time. */
    const int64_t run = st[0] == 1 ? sz[0] : 1;
    const int first = run > 1;
    for (int64_t k = 0; k < numel && !overlap; k += run) {
        if (run > 1) {
            overlap = bit_run(seen, off, run, 1);
            bit_run(seen, off, run, 0);
        } else {
            if (seen[off >> 3] & (1u << (off & 7))) overlap = 1;
            seen[off >> 3] |= (uint8_t)(1u << (off & 7));
        }
        for (int i = first; i < n; i++) {   /* odometer over the non-trivial dims */
            if (++idx[i] < sz[i]) { off += st[i]; break; }
            off -= (sz[i] - 1) * st[i];
            idx[i] = 0;
        }
    }
    if (seen != small) free(seen);
    return overlap;
}

int ss_view_has_internal_overlap(const ss_view *v) { return ss_view_internal_overlap_n(v, ss_view_numel(v)); }

/* A view's element set with size-1 dims dropped and dims merged where one
 * nests exactly inside the next (stride[d-1] == stride[d] * size[d]): the
 * same storage elements, in longer inner runs. */
typedef struct runs {
    int ndim;                        /* >= 1 */
    int64_t offset;
    int64_t sizes[SS_MAX_NDIM], strides[SS_MAX_NDIM];
} runs;

static void runs_of(const ss_view *v, runs *r) {
    int n = 0;
    for (int d = 0; d < v->ndim; d++) {
        if (v->sizes[d] == 1) continue;
        if (n > 0 && r->strides[n - 1] == v->strides[d] * v->sizes[d]) {
            r->sizes[n - 1] *= v->sizes[d];
            r->strides[n - 1] = v->strides[d];
            continue;
        }
        r->sizes[n] = v->sizes[d];
        r->strides[n] = v->strides[d];
        n++;
    }
    if (n == 0) { r->sizes[0] = 1; r->strides[0] = 1; n = 1; }
    r->ndim = n;
    r->offset = v->offset;
}

/* Marks (mode 0) or tests (mode 1) the elements of v in a bitmap whose bit 0 is
 * storage element `base`. Returns 1 in test mode when any element is marked.
 * This walk is on the fuzzing hot path: dims are merged first, a unit-stride
 * inner run is handled bytewise, any other inner run as a tight loop. */
static int walk_bitmap(const runs *r, uint8_t *bits, int64_t base, int mode) {
    const int inner = r->ndim - 1;
    const int64_t n_in = r->sizes[inner], st_in = r->strides[inner];
    int64_t idx[SS_MAX_NDIM];
    memset(idx, 0, sizeof(int64_t) * (size_t)inner);
    int64_t row = r->offset - base;
    for (;;) {
        int64_t off = row;
        if (st_in == 1) {
            if (bit_run(bits, off, n_in, mode)) return 1;
        } else if (mode == 0) {
            for (int64_t k = 0; k < n_in; k++, off += st_in) bits[off >> 3] |= (uint8_t)(1u << (off & 7));
        } else {
            for (int64_t k = 0; k < n_in; k++, off += st_in)
                if (bits[off >> 3] & (1u << (off & 7))) return 1;
        }
        int d = inner - 1;
        for (; d >= 0; d--) {   /* odometer over the outer dims */
            if (++idx[d] < r->sizes[d]) { row += r->strides[d]; break; }
            row -= (r->sizes[d] - 1) * r->strides[d];
            idx[d] = 0;
        }
        if (d < 0) return 0;
    }
}

static int same_view(const ss_view *a, const ss_view *b) {
    if (a->ndim != b->ndim || a->offset != b->offset) return 0;
    for (int d = 0; d < a->ndim; d++)
        if (a->sizes[d] != b->sizes[d] || (a->sizes[d] > 1 && a->strides[d] != b->strides[d]))
            return 0;
    return 1;
}

/* Storage elements a + i*s for 0 <= i < n (n >= 1): one run of a view. */
typedef struct ap { int64_t a, s, n; } ap;

/* g = gcd(s, t) for s, t > 0, and *inv in [0, t/g) with s * inv == g (mod t):
 * extended Euclid. The coefficients stay within t/g in magnitude. */
static int64_t ext_gcd(int64_t s, int64_t t, int64_t *inv) {
    int64_t r0 = s, r1 = t, u0 = 1, u1 = 0;
    while (r1) {
        const int64_t q = r0 / r1, r = r0 - q * r1, u = u0 - q * u1;
        r0 = r1; r1 = r;
        u0 = u1; u1 = u;
    }
    const int64_t m = t / r0;
    *inv = u0 % m < 0 ? u0 % m + m : u0 % m;
    return r0;
}

/* (x * y) mod m for x, y in [0, m): 64-bit when the product fits, which for
 * fuzzing-sized storages is always. */
static int64_t mul_mod(int64_t x, int64_t y, int64_t m) {
    if (x < ((int64_t)1 << 31) && y < ((int64_t)1 << 31)) return x * y % m;
    return (int64_t)((unsigned __int128)x * (unsigned __int128)y % (unsigned __int128)m);
}

/* Do two runs (of a validated view: every element < 2^40) share an element?
 * Exact. Both lie in [lo, hi] (the overlap of their ranges); an element of
 * both is a number e in [lo, hi] with e == x.a (mod x.s) and e == y.a
 * (mod y.s). Those congruences have a solution iff gcd(x.s, y.s) divides
 * y.a - x.a (then the solutions repeat every lcm(x.s, y.s)), and then the
 * smallest one >= x.a is x.a + k * x.s with k = (y.a - x.a)/g * inv (mod y.s/g). */
static int aps_meet(ap x, ap y) {
    if (x.n == 1 || x.s == 0) { x.n = 1; x.s = 0; }   /* a single element */
    if (y.n == 1 || y.s == 0) { y.n = 1; y.s = 0; }
    const int64_t xh = x.a + (x.n - 1) * x.s, yh = y.a + (y.n - 1) * y.s;
    const int64_t lo = x.a > y.a ? x.a : y.a, hi = xh < yh ? xh : yh;
    if (lo > hi) return 0;
    /* A single element inside the other's range: is it on its stride? */
    if (x.s == 0) return y.s == 0 || (x.a - y.a) % y.s == 0;
    if (y.s == 0) return (y.a - x.a) % x.s == 0;
    if (x.s == y.s) return (y.a - x.a) % x.s == 0;   /* then lo is in both */
    int64_t inv;
    const int64_t g = ext_gcd(x.s, y.s, &inv), d = y.a - x.a;
    if (d % g) return 0;
    const int64_t m = y.s / g;   /* k repeats with period m */
    int64_t r = (d / g) % m;
    if (r < 0) r += m;
    /* first <= x.a + x.s * (m - 1) < 2^40 * (1 + y.s): the products need 128 bits. */
    const __int128 first = (__int128)x.a + (__int128)mul_mod(r, inv, m) * x.s;
    if (first >= lo) return first <= hi;
    const __int128 period = (__int128)x.s * m;   /* lcm(x.s, y.s) */
    if (period > hi - first) return 0;            /* the next one is past hi */
    const int64_t f = (int64_t)first, p = (int64_t)period;   /* both fit now */
    return f + (lo - f + p - 1) / p * p <= hi;
}

/* Row count of r (its runs along the innermost dim), and their first elements
 * into starts[] when it holds at most `cap` of them. */
static int64_t row_starts(const runs *r, int64_t *starts, int64_t cap) {
    const int outer = r->ndim - 1;
    int64_t rows = 1, idx[SS_MAX_NDIM];
    for (int d = 0; d < outer; d++) {
        if (r->sizes[d] > cap / rows) return cap + 1;
        rows *= r->sizes[d];
        idx[d] = 0;
    }
    int64_t row = r->offset;
    for (int64_t k = 0; k < rows; k++) {
        starts[k] = row;
        for (int d = outer - 1; d >= 0; d--) {   /* odometer over the outer dims */
            if (++idx[d] < r->sizes[d]) { row += r->strides[d]; break; }
            row -= (r->sizes[d] - 1) * r->strides[d];
            idx[d] = 0;
        }
    }
    return rows;
}

/* ---- a shared element as a bounded linear equation ----
 *
 * a and b share an element when a.offset + sum(i_d * a.stride_d) ==
 * b.offset + sum(j_d * b.stride_d) for some indices 0 <= i_d < a.size_d,
 * 0 <= j_d < b.size_d: sum(x_k * c_k) == b.offset - a.offset with one unknown
 * x_k per stride c_k > 0, in [lo_k, hi_k] (i_d, or -j_d; unknowns of equal
 * stride merged: their sum takes every value between the sums of their
 * bounds). Size-1 and stride-0 dims move nothing and are left out. Solved
 * exactly by a search from the largest stride down, where the smaller
 * strides' reachable range bounds each unknown; for nested layouts (each
 * stride past the reach of the smaller ones, the usual case) a level has at
 * most two candidates. */

/* One unknown: x in [lo, hi] with coefficient c > 0. */
typedef struct term { int64_t c, lo, hi; } term;

/* Candidates the search may try before it gives up (-1: no answer). */
#define SOLVE_BUDGET 64

static int64_t floor_div(int64_t a, int64_t c) { return a >= 0 ? a / c : -((c - 1 - a) / c); }   /* c > 0 */

/* Is sum(x_k * c_k for k >= i) == r solvable? t sorted by c descending, all c
 * distinct; lo_sum[i] and hi_sum[i] the least and greatest such sums. Every
 * magnitude is below 2^42 (a validated view's reach is below 2^40). */
static int solve_from(const term *t, int n, int i, int64_t r, const int64_t *lo_sum, const int64_t *hi_sum,
                      int *budget) {
    if (r < lo_sum[i] || r > hi_sum[i]) return 0;
    if (i == n) return 1;                      /* r == 0 */
    if (i == n - 1) return r % t[i].c == 0;    /* then r / c is within [lo, hi] */
    if (i == n - 2) {   /* x * c + y * c' == r: {x * c} meets {r - y * c'}, two progressions */
        const term u = t[i], v = t[i + 1];
        return aps_meet((ap){u.lo * u.c, u.c, u.hi - u.lo + 1}, (ap){r - v.hi * v.c, v.c, v.hi - v.lo + 1});
    }
    int64_t x = -floor_div(hi_sum[i + 1] - r, t[i].c);   /* ceil((r - hi_sum[i + 1]) / c) */
    int64_t x_end = floor_div(r - lo_sum[i + 1], t[i].c);
    if (x < t[i].lo) x = t[i].lo;
    if (x_end > t[i].hi) x_end = t[i].hi;
    for (; x <= x_end; x++) {
        if (--*budget < 0) return -1;
        const int k = solve_from(t, n, i + 1, r - x * t[i].c, lo_sum, hi_sum, budget);
        if (k) return k;
    }
    return 0;
}

/* Adds the unknowns of v's dims (sign +1: x = i_d, -1: x = -j_d) to t,
 * sorted by c descending, equal strides merged. */
static void add_terms(const ss_view *v, int sign, term *t, int *n) {
    for (int d = 0; d < v->ndim; d++) {
        const int64_t c = v->strides[d], top = v->sizes[d] - 1;
        if (top == 0 || c == 0) continue;
        const int64_t lo = sign > 0 ? 0 : -top, hi = sign > 0 ? top : 0;
        int k = 0;
        while (k < *n && t[k].c > c) k++;
        if (k < *n && t[k].c == c) { t[k].lo += lo; t[k].hi += hi; continue; }
        for (int j = *n; j > k; j--) t[j] = t[j - 1];
        t[k] = (term){c, lo, hi};
        (*n)++;
    }
}

/* Do a and b (validated, non-empty) share an element? 1 or 0 exactly, or -1
 * when the search ran out of candidates. */
static int views_meet_solved(const ss_view *a, const ss_view *b) {
    if (a->ndim == 1 && b->ndim == 1)   /* two progressions (most cases of rank 1) */
        return aps_meet((ap){a->offset, a->strides[0], a->sizes[0]}, (ap){b->offset, b->strides[0], b->sizes[0]});
    term t[2 * SS_MAX_NDIM];
    int n = 0;
    add_terms(a, 1, t, &n);
    add_terms(b, -1, t, &n);
    int64_t lo_sum[2 * SS_MAX_NDIM + 1], hi_sum[2 * SS_MAX_NDIM + 1];
    lo_sum[n] = hi_sum[n] = 0;
    for (int k = n - 1; k >= 0; k--) {
        lo_sum[k] = lo_sum[k + 1] + t[k].lo * t[k].c;
        hi_sum[k] = hi_sum[k + 1] + t[k].hi * t[k].c;
    }
    int budget = SOLVE_BUDGET;
    return solve_from(t, n, 0, b->offset - a->offset, lo_sum, hi_sum, &budget);
}

/* Row pairs worth testing one by one with aps_meet before a bitmap is cheaper. */
#define AP_PAIRS 16

/* Do the element sets of a and b (both non-empty, within [lo, hi]) intersect?
 * Exact; where the equation's search (above) gives up. When both views have
 * few runs, every pair of runs is solved arithmetically; otherwise a bitmap
 * marks a and tests b (which stops at the first shared element): pass the
 * view with fewer elements as a. */
static int views_intersect(const ss_view *a, const ss_view *b, int64_t lo, int64_t hi) {
    runs ra, rb;
    runs_of(a, &ra);
    runs_of(b, &rb);
    int64_t sa[AP_PAIRS], sb[AP_PAIRS];
    const int64_t na = row_starts(&ra, sa, AP_PAIRS);
    const int64_t nb = na <= AP_PAIRS ? row_starts(&rb, sb, AP_PAIRS / na) : AP_PAIRS + 1;
    if (nb <= AP_PAIRS / na) {
        const ap xa = {0, ra.strides[ra.ndim - 1], ra.sizes[ra.ndim - 1]};
        const ap xb = {0, rb.strides[rb.ndim - 1], rb.sizes[rb.ndim - 1]};
        for (int64_t i = 0; i < na; i++)
            for (int64_t j = 0; j < nb; j++)
                if (aps_meet((ap){sa[i], xa.s, xa.n}, (ap){sb[j], xb.s, xb.n})) return 1;
        return 0;
    }
    uint8_t small[SMALL_BITMAP];
    const size_t nbytes = (size_t)((hi - lo) / 8 + 1);
    uint8_t *bits = nbytes <= sizeof small ? memset(small, 0, nbytes) : calloc(nbytes, 1);
    if (!bits) return 1;   /* conservative */
    walk_bitmap(&ra, bits, lo, 0);
    int hit = walk_bitmap(&rb, bits, lo, 1);
    if (bits != small) free(bits);
    return hit;
}

static void view_range(const ss_view *v, int64_t *lo, int64_t *hi) {
    *lo = v->offset;
    *hi = v->offset;
    for (int d = 0; d < v->ndim; d++) *hi += (v->sizes[d] - 1) * v->strides[d];
}

/* The overlap class; solve == 0 skips the equation (tests: runs and bitmaps
 * alone, which it falls back on). The equation's search tests the views'
 * ranges first (no element of b in a's range: no solution), the way the
 * fallback does before it looks further. */
static ss_overlap classify(const ss_plan *p, int solve) {
    if (!p->op.src_aliased) return SS_OVL_SEPARATE;
    if (p->slice_numel == 0 || ss_view_end(&p->op.src) == p->op.src.offset) return SS_OVL_DISJOINT;
    if (same_view(&p->slice, &p->op.src)) return SS_OVL_SAME_VIEW;
    if (solve) {
        const int partial = views_meet_solved(&p->slice, &p->op.src);
        if (partial > 0) return SS_OVL_PARTIAL;
        const int outside = partial == 0 ? views_meet_solved(&p->op.src, &p->op.input) : -1;
        if (outside >= 0) return outside ? SS_OVL_OUTSIDE_SLICE : SS_OVL_DISJOINT;
    }
    int64_t slo, shi, rlo, rhi, ilo, ihi;
    view_range(&p->slice, &slo, &shi);
    view_range(&p->op.src, &rlo, &rhi);
    view_range(&p->op.input, &ilo, &ihi);
    int64_t lo = rlo < ilo ? rlo : ilo, hi = rhi > ihi ? rhi : ihi;
    if (rlo <= shi && slo <= rhi && views_intersect(&p->slice, &p->op.src, lo, hi))
        return SS_OVL_PARTIAL;
    if (rlo <= ihi && ilo <= rhi && views_intersect(&p->op.src, &p->op.input, lo, hi))
        return SS_OVL_OUTSIDE_SLICE;
    return SS_OVL_DISJOINT;
}

ss_overlap ss_plan_overlap(const ss_plan *plan) { return classify(plan, 1); }

ss_overlap ss_plan_overlap_unsolved(const ss_plan *plan) { return classify(plan, 0); }
