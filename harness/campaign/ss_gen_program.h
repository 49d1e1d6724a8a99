/* ss_gen_program.h - programs around a generated case's write (--programs): short, aliasing-heavy, valid and exact. */
#ifndef SS_GEN_PROGRAM_H
#define SS_GEN_PROGRAM_H

#include <stdint.h>
#include "ss_case.h"
#include "ss_gen.h"

/* Step kinds a swarm epoch may switch off (each kept with p = 1/2, never all). */
enum { SS_GP_VIEW, SS_GP_READ, SS_GP_WRITE, SS_GP_INPLACE, SS_GP_INDEX_PUT, SS_GP_SCATTER,
       SS_GP_RETURN, SS_GP_KIND_COUNT };
const char *ss_gp_kind_name(int k);

/* Gives the generated case c (case `index` of campaign `seed`, as
 * ss_gen_case made it) a program of 1..cfg->program_steps steps and the
 * small fill. Deterministic in (cfg, seed, index). Biased to aliasing: views
 * of x and src over the written slice, a read before the write used after
 * it, mutations of src or x after the write, operands that are other views
 * of the same storage, a slice_scatter result returned after x changes. The
 * program is valid for the reference (it may be refused: that is PyTorch's
 * behavior to check) and exact (result.inexact_step < 0). Returns 0, or -1
 * when out of memory (c unchanged). */
int ss_gen_program(const ss_gen_config *cfg, uint64_t seed, uint64_t index, ss_case *c);

/* The step kinds switched on for case `index` (1 each; all on without swarm). */
void ss_gen_program_kinds(const ss_gen_config *cfg, uint64_t seed, uint64_t index,
                          unsigned char on[SS_GP_KIND_COUNT]);

#endif
