/* ss_bits.h - bit helpers several modules share: the splitmix64 finalizer and
 * little-endian loads of 1-8 bytes. Header-only (static inline). */
#ifndef SS_BITS_H
#define SS_BITS_H

#include <stddef.h>
#include <stdint.h>

/* splitmix64's finalizer: the one hash behind the generator's streams and the
 * seeded fill (both must stay bit-exact across releases: cases replay). */
static inline uint64_t ss_mix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* n <= 8 bytes at p as a little-endian integer. */
static inline uint64_t ss_load_le(const uint8_t *p, size_t n) {
    uint64_t v = 0;
    for (size_t i = n; i-- > 0;) v = (v << 8) | p[i];
    return v;
}

#endif
