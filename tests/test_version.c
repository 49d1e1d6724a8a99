/* test_version.c - PEP 440 ordering, version and range refusals, and how an expect entry's torch range uses them. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "ss_expect.h"
#include "ss_version.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* a sorts before (-1), with (0) or after (1) b. */
static const struct { const char *a, *b; int order; } orders[] = {
    /* X.devN < X.aN.devM < X.aN < X.aN.postM < X.bN < X.rcN < X < X.postN.devM < X.postN */
    {"2.15.0.dev1", "2.15.0a0.dev1", -1},
    {"2.15.0a0.dev1", "2.15.0a0", -1},
    {"2.15.0a0", "2.15.0a0.post1", -1},
    {"2.15.0a0.post1", "2.15.0b1", -1},
    {"2.15.0b1", "2.15.0rc1", -1},
    {"2.15.0rc1", "2.15.0", -1},
    {"2.15.0", "2.15.0.post1.dev1", -1},
    {"2.15.0.post1.dev1", "2.15.0.post1", -1},
    {"2.15.0.dev20250101", "2.15.0a0", -1},
    {"2.15.0.dev20250101", "2.15.0.dev20250102", -1},
    {"2.14.99", "2.15.0.dev0", -1},
    {"1.13.dev0", "1.13.0a0", -1},
    {"1.13.0a0", "1.13", -1},
    {"2.15.0a9", "2.15.0a10", -1},
    {"2.15.0rc1", "2.15.0rc1.post1.dev2", -1},
    {"9.99", "10.0", -1},
    {"2.15.0", "1!0.1", -1},
    {"999999999999999998", "999999999999999999", -1},
    /* trailing zeros, leading zeros, epoch 0, local labels: equal */
    {"2.15", "2.15.0", 0},
    {"2.15.0.0.0", "2.15", 0},
    {"0", "0.0.0", 0},
    {"2.15.010", "2.15.10", 0},
    {"0!2.15", "2.15", 0},
    {"2.15.0+cu130", "2.15.0", 0},
    {"2.15.0+cu130", "2.15.0+cpu", 0},
    {"2.15.0a0+git1a2b3c", "2.15.0a0", 0},
    /* PEP 440's other spellings of the same version */
    {"2.15.0alpha1", "2.15.0a1", 0},
    {"2.15.0-beta.2", "2.15.0b2", 0},
    {"2.15.0c1", "2.15.0rc1", 0},
    {"2.15.0pre1", "2.15.0rc1", 0},
    {"2.15.0preview1", "2.15.0rc1", 0},
    {"2.15.0_RC_1", "2.15.0rc1", 0},
    {"2.15rc", "2.15rc0", 0},
    {"2.15.0-1", "2.15.0.post1", 0},
    {"2.15.0rev1", "2.15.0.post1", 0},
    {"2.15.0r1", "2.15.0.post1", 0},
    {"2.15.0.post", "2.15.0.post0", 0},
    {"2.15.0.DEV3", "2.15.0.dev3", 0},
    {"2.15.0-dev-3", "2.15.0.dev3", 0},
};

/* Not versions: the why names the string and holds this. */
static const struct { const char *s, *why; } bad_versions[] = {
    {"v2.15", "leading \"v\" is not accepted"},
    {"V2.15", "leading \"v\" is not accepted"},
    {"", "must start with a release number"},
    {"latest", "must start with a release number"},
    {"2..1", "unexpected \"..1\" after \"2\""},
    {"2.", "unexpected \".\" after \"2\""},
    {"2.15 ", "unexpected \" \" after \"2.15\""},
    {"2.15\n", "unexpected \"\\x0a\" after \"2.15\""},
    {"2.15-custom", "unexpected \"-custom\" after \"2.15\""},
    {"2.15.0a.", "unexpected \"a.\" after \"2.15.0\""},
    {"2.15+", "local label after '+'"},
    {"2.15+cu_", "local label after '+'"},
    {"2.15+cu130+cpu", "unexpected \"+cu130+cpu\" after \"2.15\""},
    {"1!", "epoch"},
    {"99999999999999999999", "component \"99999999999999999999\" has more than 18 digits"},
    {"2.15.0.dev99999999999999999999", "more than 18 digits"},
    {"1.2.3.4.5.6.7.8.9.10.11.12.13.14.15.16.17", "more than 16 release components"},
};

/* version in range: 1 in, 0 out. */
static const struct { const char *version, *range; int in; } ranges[] = {
    {"2.14.1+cu130", "<2.15", 1},
    {"2.15.0", "<2.15", 0},
    {"2.15.0a0+git1a2b3c", "<2.15", 1},     /* a nightly before the release */
    {"2.15.0.dev20250101", "<2.15", 1},
    {"2.15.0rc1", ">=2.15", 0},
    {"2.15.0.dev20250101", ">=2.15.dev0", 1},
    {"2.15", ">=2.15.0", 1},
    {"1.13.0a0", ">=1.13", 0},                /* Debian's torch is a 1.13 pre-release */
    {"1.13.0a0", ">=1.13.dev0", 1},
    {"2.14.1", ">=2.14,<2.15", 1},
    {"2.13.9", ">=2.14, <2.15", 0},
    {"2.14.1", "==2.14.1", 1},
    {"2.14.1+cu130", "==2.14.1", 1},
    {"2.14.1.post1", "==2.14.1", 0},
    {"2.14.1", "!=2.14.1", 0},
    {"2.14.1", "!=2.14.1.post1", 1},
    {"10.0", ">9.99", 1},
    {"1!1.0", ">2.15", 1},
    {"2.15.0", " <= 2.15 ", 1},
    {"2.15.0", "\t>2.14.1 ,\t<2.16", 1},
};

/* Not ranges: the why names the range and holds this. */
static const struct { const char *range, *why; } bad_ranges[] = {
    {"<2.15,", "\"<2.15,\" is not a version range: empty clause after ','"},
    {",<2.15", "empty clause before ','"},
    {"<2.14,,<2.15", "empty clause after ','"},
    {"", "empty (write e.g."},
    {"   ", "empty (write e.g."},
    {"2.15", "clause \"2.15\" must start with <, <=, >, >=, == or !="},
    {"~=2.1", "must start with <, <="},
    {"=2.1", "must start with <, <="},
    {"<", "clause \"<\" has no version after <"},
    {">=", "has no version after >="},
    {">= ,<3", "has no version after >="},
    {"<2.15 junk", "\"2.15 junk\" is not a PEP 440 version: unexpected \" junk\""},
    {"<v2.15", "leading \"v\" is not accepted"},
    {"<2..1", "unexpected \"..1\""},
    {"<99999999999999999999", "more than 18 digits"},
    {"==2.15+cu130", "local label (+...) is ignored in ordering"},
    {"===2.15", "\"=2.15\" is not a PEP 440 version"},
    {"<2.15;>1", "unexpected \";>1\""},
    {"<2.15\n", "\"<2.15\\x0a\""},
};

static void test_order(void **state) {
    (void)state;
    for (size_t i = 0; i < N(orders); i++) {
        ss_version a, b;
        char why[256] = "";
        if (ss_version_parse(orders[i].a, &a, why, sizeof why) || ss_version_parse(orders[i].b, &b, why, sizeof why))
            fail_msg("row %zu: %s", i, why);
        const int ab = ss_version_compare(&a, &b), ba = ss_version_compare(&b, &a);
        const int got = (ab > 0) - (ab < 0);
        if (got != orders[i].order || (ba > 0) - (ba < 0) != -orders[i].order)
            fail_msg("row %zu: %s vs %s: got %d, want %d", i, orders[i].a, orders[i].b, got, orders[i].order);
    }
}

static void test_bad_versions(void **state) {
    (void)state;
    for (size_t i = 0; i < N(bad_versions); i++) {
        ss_version v;
        char why[256] = "";
        if (ss_version_parse(bad_versions[i].s, &v, why, sizeof why) != -1)
            fail_msg("row %zu: \"%s\" accepted", i, bad_versions[i].s);
        if (!strstr(why, bad_versions[i].why) || strchr(why, '\n') || !strstr(why, "is not a PEP 440 version"))
            fail_msg("row %zu: why is \"%s\", want \"%s\"", i, why, bad_versions[i].why);
        assert_int_equal(ss_version_in_range(bad_versions[i].s, "<3"), -1);
    }
}

static void test_ranges(void **state) {
    (void)state;
    for (size_t i = 0; i < N(ranges); i++) {
        char why[256] = "";
        if (ss_version_range_check(ranges[i].range, why, sizeof why)) fail_msg("row %zu: %s", i, why);
        const int in = ss_version_in_range(ranges[i].version, ranges[i].range);
        if (in != ranges[i].in)
            fail_msg("row %zu: %s in \"%s\": got %d, want %d", i, ranges[i].version, ranges[i].range, in, ranges[i].in);
    }
}

static void test_bad_ranges(void **state) {
    (void)state;
    for (size_t i = 0; i < N(bad_ranges); i++) {
        char why[256] = "";
        if (ss_version_range_check(bad_ranges[i].range, why, sizeof why) != -1)
            fail_msg("row %zu: \"%s\" accepted", i, bad_ranges[i].range);
        if (!strstr(why, bad_ranges[i].why) || strchr(why, '\n') || !strstr(why, "is not a version range: "))
            fail_msg("row %zu: why is \"%s\", want \"%s\"", i, why, bad_ranges[i].why);
        assert_int_equal(ss_version_in_range("2.15.0", bad_ranges[i].range), -1);
    }
    /* a small buffer truncates, never overruns; none at all is allowed */
    char tiny[8];
    assert_int_equal(ss_version_range_check("<2.15,", tiny, sizeof tiny), -1);
    assert_int_equal(strlen(tiny), sizeof tiny - 1);
    assert_int_equal(ss_version_range_check("<2.15,", NULL, 0), -1);
}

/* A long hostile string: the message shows a bounded, escaped prefix. */
static void test_long_input(void **state) {
    (void)state;
    char s[4096], why[256];
    memset(s, '\x01', sizeof s - 1);
    s[0] = '1';
    s[sizeof s - 1] = 0;
    ss_version v;
    assert_int_equal(ss_version_parse(s, &v, why, sizeof why), -1);
    assert_non_null(strstr(why, "...\""));
    assert_null(strchr(why, '\x01'));
    memset(s, '9', sizeof s - 1);   /* one 4095-digit component */
    assert_int_equal(ss_version_parse(s, &v, why, sizeof why), -1);
    assert_non_null(strstr(why, "more than 18 digits"));
}

/* ss_expect_of on a torch range: the running version decides, and one that
 * is unknown or not PEP 440 leaves the entry unjudged, never "expected to fail". */
static const char *fake_running;
static const char *fake_version(const char **why) {
    if (!fake_running && why) *why = "the worker did not start";
    return fake_running;
}

static void test_expect_uses_running_version(void **state) {
    (void)state;
    static const ss_engine engine = {.name = "fake", .version = fake_version};
    static const ss_target target = {.name = "fake:eager", .engine = &engine, .kernel = "eager"};
    ss_expect x;
    memset(&x, 0, sizeof x);
    x.n = 1;
    x.e[0].target = &target;
    x.e[0].kind = SS_EXPECT_FAIL;
    snprintf(x.e[0].signature, sizeof x.e[0].signature, "mismatch");
    snprintf(x.e[0].torch_range, sizeof x.e[0].torch_range, ">=2.14,<2.15");
    const char *sig = NULL;
    char why[600];
    fake_running = "2.14.1+cu130";
    assert_int_equal(ss_expect_of(&x, &target, &sig), SS_EXPECT_FAIL);
    assert_string_equal(sig, "mismatch");
    fake_running = "2.15.0a0+git1a2b3c";   /* a nightly before 2.15: inside <2.15 */
    assert_int_equal(ss_expect_of(&x, &target, &sig), SS_EXPECT_FAIL);
    fake_running = "2.15.0";
    assert_int_equal(ss_expect_of(&x, &target, &sig), SS_EXPECT_AGREE);
    fake_running = "v2.14.1";
    assert_int_equal(ss_expect_of(&x, &target, &sig), SS_EXPECT_UNJUDGED);
    ss_expect_unjudged_why(&x, &target, why, sizeof why);
    assert_non_null(strstr(why, "running torch: \"v2.14.1\" is not a PEP 440 version"));
    assert_non_null(strstr(why, "whether mismatch is expected (only in torch \">=2.14,<2.15\") cannot be judged"));
    fake_running = NULL;
    assert_int_equal(ss_expect_of(&x, &target, &sig), SS_EXPECT_UNJUDGED);
    ss_expect_unjudged_why(&x, &target, why, sizeof why);
    assert_non_null(strstr(why, "running torch: version unknown (the worker did not start)"));
    /* judging an unjudged entry holds nothing */
    ss_expect_outcome o;
    ss_expect_judge(SS_EXPECT_UNJUDGED, "mismatch", NULL, NULL, 0, &o);
    assert_int_equal(o.held, 0);
    assert_string_equal(o.signature, "unjudged");
}

int main(void) {
    printf("table rows: %zu orderings, %zu bad versions, %zu ranges, %zu bad ranges\n", N(orders),
           N(bad_versions), N(ranges), N(bad_ranges));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order),       cmocka_unit_test(test_bad_versions),
        cmocka_unit_test(test_ranges),      cmocka_unit_test(test_bad_ranges),
        cmocka_unit_test(test_long_input),  cmocka_unit_test(test_expect_uses_running_version),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
