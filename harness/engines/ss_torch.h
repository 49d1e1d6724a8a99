/* ss_torch.h - the torch engine: targets torch:MODE:SPELLING, run by one
 * persistent Python worker per process (harness/engines/ss_torch_worker.py, built
 * into the binary), over the frames of ss_torch_proto.h.
 *
 * MODE (the table of ss_torch_modes.h): eager-cpu, compile-cpu, compile-dynamic-cpu,
 * aot-eager-cpu (backend aot_eager), dynamo-eager-cpu (backend eager), and the same for cuda.
 * SPELLING: setitem, setitem-clone, copy, scatter-copy, scatter-return,
 * clone-scatter, index-put, and program (program cases only: the printed
 * `def program(x, src)`). Compiled targets have schedules, the forms in which
 * the views reach the compiled function: x-input, storage-input, two-inputs
 * (a program: two-inputs only). The engine's stages hook names a compiled
 * target's dynamo-eager and aot-eager siblings (for compile-dynamic, two
 * unlisted dynamic modes).
 *
 * Python: ss_torch_set_python (the global --python option), else
 * $SSFUZZ_PYTHON, else the first python3 on PATH that imports torch.
 * The worker is started on first use and owned by the process that started
 * it: a forked child starts its own. */
#ifndef SS_TORCH_H
#define SS_TORCH_H

#include <stddef.h>
#include "ss_target.h"

extern const ss_engine ss_torch_engine;

/* Cases a campaign runs together on a compiled torch target (--batch). */
#define SS_TORCH_BATCH 32

size_t ss_torch_target_count(void);
const ss_target *ss_torch_target_at(size_t i);

void ss_torch_set_python(const char *path);
/* The running torch version ("2.14.1"), starting the worker if needed; NULL
 * with the reason in *why when there is no usable torch. */
const char *ss_torch_version(const char **why);
/* What the last worker this process (or its parent) started reported; NULL
 * when none started. Never starts one. */
const char *ss_torch_known_version(void);
const char *ss_torch_known_python(void);
/* Stops this process's worker (a campaign's parent, before forking workers). */
void ss_torch_shutdown(void);
/* The torch worker's environment, set in its child before exec (inductor's
 * compile threads and caches); the Python-kernel workers start from it too. */
void ss_torch_child_env(void);
/* The inductor cache directory the worker uses (see ss_torch.c); 0, or -1
 * when it uses inductor's default. */
int ss_torch_cache_dir(char *out, size_t n);

#endif
