/* ss_test_hook.h - fault-injection hooks for the project's own tests.
 * A hook variable (SSFUZZ_TEST_FAULT, SSFUZZ_TORCH_TEST_FAULT) acts only
 * when SSFUZZ_TEST_HOOKS=1 is set as well: a stray variable in a user's
 * environment never makes a campaign crash, hang or drop a finding. */
#ifndef SS_TEST_HOOK_H
#define SS_TEST_HOOK_H

#include <stdlib.h>
#include <string.h>

static inline const char *ss_test_hook(const char *name) {
    const char *on = getenv("SSFUZZ_TEST_HOOKS");
    return on && !strcmp(on, "1") ? getenv(name) : NULL;
}

#endif
