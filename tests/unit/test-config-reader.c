/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The line reader and its limits (lib/config-reader.c): syntax, comments, continuation lines,
 * long lines, bytes that are not UTF-8, name lengths, and random bytes. */

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "macro.h"
#include "test-config.h"
#include "test-helpers.h"

/* --- the reader ------------------------------------------------------------------------------- */

/* Bytes through both paths (memory, and a file read in bounded memory). */
static void reader_bad(const char *text, size_t len, const char *const *errors, size_t n) {
        load_both_bad(text, len, errors, n, "file");
}

START_TEST(test_empty_file) {
        _cleanup_free_ char *path = NULL;
        struct df_config_errors e = {};
        struct df_config *c = sentinel;

        /* 0 bytes: write_file cannot write nothing with len 0, so create it directly. */
        ck_assert_int_ge(asprintf(&path, "%s/empty.conf", dir), 0);
        fclose(fopen(path, "we"));
        ck_assert_int_eq(df_config_load(path, NULL, &c, &e), -EINVAL);
        ck_assert_ptr_eq(c, sentinel);
        ck_assert_uint_eq(e.n, 1);
        ck_assert_str_eq(e.messages[0] + strlen(path), ":1: the file is empty");
        df_config_errors_done(&e);

        load_string_bad("", 0, (const char *const[]){ "bad.conf:1: the file is empty" }, 1);
        load_string_bad(NULL, 0, (const char *const[]){ "bad.conf:1: the file is empty" }, 1);
        reader_bad(" \n\n\t\r\n  ", 8, (const char *const[]){ "bad.conf:1: the file is empty" }, 1);
}
END_TEST

START_TEST(test_comments_only) {
        struct df_config *c;

        c = load_ok("; nothing\n# else\n\n   ; indented comment\n");
        check_defaults(c);
        df_config_free(c);
        /* No final newline. */
        c = load_ok("[daemon]\nmax-clients = 7");
        ck_assert_uint_eq(c->max_clients, 7);
        df_config_free(c);
        /* A BOM at the start. */
        c = load_ok("\xEF\xBB\xBF[daemon]\nmax-clients = 8\n");
        ck_assert_uint_eq(c->max_clients, 8);
        df_config_free(c);
}
END_TEST

START_TEST(test_inline_comments) {
        struct df_config *c = load_ok(
                "[daemon] ; the daemon\n"
                "max-clients = 12 ; twelve\n"
                "allow-groups = wheel\t; tab before\n"
                "request-groups = ;nothing\n" /* ";" right after "=" follows whitespace: a comment */
                "[device gpu]\n"
                "path = /sys/class/devfreq/gpu#1 ; '#' inside a value is a character\n");

        ck_assert_uint_eq(c->max_clients, 12);
        ck_assert_uint_eq(c->n_allow_groups, 1);
        ck_assert_str_eq(c->allow_groups[0], "wheel");
        ck_assert_uint_eq(c->n_request_groups, 0);
        ck_assert_str_eq(c->devices[0].path, "/sys/class/devfreq/gpu#1");
        df_config_free(c);

        /* ';' not after whitespace is part of the value: "schedutil;x" is no kernel governor name. */
        load_string_bad(
                DEV "governor = schedutil;x\n", strlen(DEV "governor = schedutil;x\n"),
                (const char *const[]){ "bad.conf:3: 'schedutil;x' is not a kernel governor name" }, 1);
}
END_TEST

START_TEST(test_continuation) {
        struct df_config *c = load_ok("[daemon]\n"
                                      "allow-groups = wheel\n"
                                      "  adm ; a comment on a continuation line\n"
                                      "\n"
                                      "\tsudo\n"
                                      "[device gpu]\n"
                                      "path = /sys/class/devfreq/gpu\n"
                                      "opp = 200MHz\n"
                                      "    825mV\n"
                                      "    latency=2ms\n"
                                      "opp = 400MHz\n");
        const struct df_config_device *gpu = &c->devices[0];

        ck_assert_uint_eq(c->n_allow_groups, 3);
        ck_assert_str_eq(c->allow_groups[1], "adm");
        ck_assert_str_eq(c->allow_groups[2], "sudo");
        ck_assert_uint_eq(gpu->n_opps, 2);
        ck_assert_uint_eq(gpu->opps[0].freq, MHZ(200));
        ck_assert_uint_eq(gpu->opps[0].microvolt, 825000);
        ck_assert_uint_eq(gpu->opps[0].latency_us, 2000);
        ck_assert_uint_eq(gpu->opps[0].loc.line, 8);
        df_config_free(c);
}
END_TEST

START_TEST(test_continuation_errors) {
        /* A continued value is judged whole, at its key's line. */
        load_string_bad(
                "[daemon]\nmax-clients = 5\n  6\n", strlen("[daemon]\nmax-clients = 5\n  6\n"),
                (const char *const[]){ "bad.conf:2: max-clients '5 6' is not a number" }, 1);
        /* Indented after a key, even a header is a continuation. */
        load_string_bad(
                "[daemon]\nmax-clients = 5\n  [device gpu]\n",
                strlen("[daemon]\nmax-clients = 5\n  [device gpu]\n"),
                (const char *const[]){ "bad.conf:2: max-clients '5 [device gpu]' is not a number" }, 1);
        /* An indented line with no key before it in its section is not a continuation. */
        load_string_bad(
                "[daemon]\n  max-clients\n", strlen("[daemon]\n  max-clients\n"),
                (const char *const[]){ "bad.conf:2: expected 'key = value' or '[section]'" }, 1);
}
END_TEST

START_TEST(test_long_lines) {
        char line[300];
        char *text;

        /* 198 bytes and the newline: fine. */
        memset(line, 'x', sizeof(line));
        memcpy(line, "; ", 2);
        line[198] = '\n';
        line[199] = '\0';
        ck_assert_int_ge(asprintf(&text, "[daemon]\n%smax-clients = 3\n", line), 0);
        {
                struct df_config *c = load_ok(text);
                ck_assert_uint_eq(c->max_clients, 3);
                df_config_free(c);
        }
        free(text);

        /* 199 bytes and the newline: an error, never split; the lines after it keep their numbers. */
        line[198] = 'x';
        line[199] = '\n';
        line[200] = '\0';
        ck_assert_int_ge(asprintf(&text, "[daemon]\n%sfoo = 1\n", line), 0);
        reader_bad(
                text, strlen(text),
                (const char *const[]){ "bad.conf:2: line longer than 199 bytes",
                                       "bad.conf:3: unknown key 'foo'" },
                2);
        free(text);

        /* A long value line: no half of it is applied. */
        ck_assert_int_ge(asprintf(&text, "[daemon]\nmax-clients = 5%0190d\n", 0), 0);
        reader_bad(text, strlen(text), (const char *const[]){ "bad.conf:2: line longer than 199 bytes" }, 1);
        free(text);

        /* Also on the last line without a newline. */
        line[199] = '\0';
        reader_bad(line, 199, (const char *const[]){ "bad.conf:1: line longer than 199 bytes" }, 1);
}
END_TEST

START_TEST(test_mib_line) {
        size_t big = 1024 * 1024, len;
        char *text = malloc(big + 64);

        ck_assert_ptr_nonnull(text);
        len = (size_t) sprintf(text, "[daemon]\nallow-groups = ");
        memset(text + len, 'a', big);
        len += big;
        len += (size_t) sprintf(text + len, "\nmax-clients = 0\n[device gpu]\n");
        reader_bad(
                text, len,
                (const char *const[]){ "bad.conf:2: line longer than 199 bytes",
                                       "bad.conf:3: max-clients '0'", "bad.conf:4: device 'gpu' has no path" },
                3);
        free(text);
}
END_TEST

START_TEST(test_bad_bytes) {
        /* Not UTF-8: a lone Latin-1 byte, an overlong '/', a surrogate, a truncated sequence, beyond U+10FFFF. */
        static const char *const bad[] = {
                "[daemon]\nautodiscover = yes\n; caf\xe9\n",
                "[daemon]\nautodiscover = yes\n; \xc0\xaf\n",
                "[daemon]\nautodiscover = yes\n; \xed\xa0\x80\n",
                "[daemon]\nautodiscover = yes\n; \xe2\x82\n",
                "[daemon]\nautodiscover = yes\n; \xf4\x90\x80\x80\n",
        };
        static const char nul[] = "[daemon]\nauto\0discover = yes\nmax-clients = 2\n";
        static const char bad_header[] = "[daemon]\n[device g\xff]\npath = /sys/class/devfreq/x\n";
        struct df_config *c;

        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                reader_bad(bad[i], strlen(bad[i]), (const char *const[]){ "bad.conf:3: not valid UTF-8" }, 1);
        reader_bad(nul, sizeof(nul) - 1, (const char *const[]){ "bad.conf:2: contains a NUL byte" }, 1);
        /* A header with a bad byte leaves its section: its keys do not land in [daemon]. */
        reader_bad(bad_header, strlen(bad_header), (const char *const[]){ "bad.conf:2: not valid UTF-8" }, 1);

        /* Valid UTF-8 is fine anywhere. */
        c = load_ok("; Grafikprozessor – «gpu» 🚀\n[daemon]\nmax-clients = 4 ; vier\n");
        ck_assert_uint_eq(c->max_clients, 4);
        df_config_free(c);
}
END_TEST

/* --- names ------------------------------------------------------------------------------------ */

START_TEST(test_name_lengths) {
        /* "device " and a 42-byte name: a 49-byte section name. */
        static const char name42[] = "n123456789a123456789b123456789c123456789d1";
        char *text;
        struct df_config *c;

        ck_assert_uint_eq(strlen("device ") + strlen(name42), 49);
        ck_assert_int_ge(asprintf(&text, "[device %s]\npath = /sys/class/devfreq/x\n", name42), 0);
        c = load_ok(text);
        ck_assert_str_eq(c->devices[0].name, name42);
        df_config_free(c);
        free(text);

        ck_assert_int_ge(asprintf(&text, "[device %sX]\npath = /sys/class/devfreq/x\n", name42), 0);
        load_string_bad(
                text, strlen(text), (const char *const[]){ "bad.conf:1: section name longer than 49 bytes" },
                1);
        free(text);
}
END_TEST

/* --- random bytes ----------------------------------------------------------------------------- */

static uint64_t rng_state = UINT64_C(0x9E3779B97F4A7C15);

static uint64_t rng(void) {
        return df_test_random(&rng_state);
}

static const char *const vocabulary[] = {
        "[daemon]",
        "[device gpu]",
        "[device dmc]",
        "[device",
        "]",
        "[",
        "path",
        "=",
        ":",
        ";",
        "#",
        " ",
        "\t",
        "\n",
        "\n",
        "\n",
        "  ",
        "/sys/class/devfreq/gpu",
        "/sys/devices/system/cpu/cpufreq/policy0",
        "mode",
        "govern",
        "clamp",
        "governor",
        "passive",
        "simple_ondemand",
        "conservative",
        "parent",
        "gpu",
        "dmc",
        "opp",
        "opp-disabled",
        "passive-map",
        "200MHz",
        "400MHz",
        "825mV",
        "latency=1ms",
        "200MHz:200MHz",
        "upthreshold",
        "downdifferential",
        "90",
        "0",
        "load",
        "counters:/sys/x",
        "none",
        "min-frequency",
        "max-frequency",
        "initial-frequency",
        "opp-step",
        "polling-interval",
        "100ms",
        "allow-groups",
        "wheel",
        "max-clients",
        "\xff",
        "\xc3\xa9",
        "\r",
        "\0",
};

static void fuzz_one(const char *text, size_t len) {
        struct df_config_errors e = {};
        struct df_config *c = NULL;
        int r;

        r = df_config_load_string("fuzz.conf", text, len, &c, &e);
        ck_assert(r == 0 || r == -EINVAL);
        if (r == 0) {
                ck_assert_ptr_nonnull(c);
                ck_assert_uint_eq(e.n, 0);
                df_config_free(c);
        } else {
                ck_assert_uint_ge(e.n, 1);
                ck_assert_uint_le(e.n, DF_CONFIG_ERRORS_MAX);
                for (size_t i = 0; i < e.n; i++)
                        ck_assert_msg(strneq(e.messages[i], "fuzz.conf:", 10), "%s", e.messages[i]);
        }
        df_config_errors_done(&e);
}

START_TEST(test_random_bytes) {
        char buf[1024];

        for (int iter = 0; iter < 3000; iter++) {
                size_t len = 0, want = (size_t) (rng() % sizeof(buf));

                switch (iter % 3) {
                case 0: /* any bytes */
                        for (; len < want; len++)
                                buf[len] = (char) rng();
                        break;
                case 1: /* words of the format in random order */
                        while (len < want) {
                                const char *w = vocabulary[rng() % ELEMENTSOF(vocabulary)];
                                size_t n = MAX(strlen(w), (size_t) 1); /* "\0" is one byte */

                                if (len + n > sizeof(buf))
                                        break;
                                memcpy(buf + len, w, n);
                                len += n;
                        }
                        break;
                default: /* the example configuration with a few bytes changed */
                        len = MIN(strlen(design_example), sizeof(buf));
                        memcpy(buf, design_example, len);
                        for (int k = (int) (rng() % 4); k >= 0; k--)
                                buf[rng() % len] = (char) rng();
                        break;
                }
                fuzz_one(buf, len);
        }
}
END_TEST

/* --- errors: table-driven --------------------------------------------------------------------- */

static const struct bad_case bad_cases[] = {
        /* syntax, as inih sees it */
        { "[daemon]\njust some words\n", { "bad.conf:2: expected 'key = value' or '[section]'" } },
        { "[daemon\nautodiscover = yes\n", { "bad.conf:1: expected 'key = value' or '[section]'" } },
        { "[daemon]\n= 5\n", { "bad.conf:2: expected 'key = value' or '[section]'" } },
        { "[daemon]\nmax-clients ; = 5\n", { "bad.conf:2: expected 'key = value' or '[section]'" } },
        { "[daemon] x\n", { "bad.conf:1: unexpected text after ']'" } },
        { "[daemon]\x01\n", { "bad.conf:1: contains the control character 0x01" } },
        { "[daemon]\nautodiscover = yes\r\nmax-clients = 1\rx\n",
          { "bad.conf:3: contains the control character 0x0d" } },
        /* '#' as an inline comment */
        { "[daemon]\nmax-clients = 256 # limit\n",
          { "bad.conf:2: '#' starts a comment only at the start of a line; use ';' after a value" } },
        { "[daemon]\nmax-clients = 256\t#limit\n", { "bad.conf:2: '#' starts a comment only at the start" } },
        { "[daemon] # main\n", { "bad.conf:1: '#' starts a comment only at the start of a line" } },
        { DEV "governor = # none\n", { "bad.conf:3: '#' starts a comment only at the start of a line" } },
        { DEV "opp = 200MHz\n  825mV # volts\n", { "bad.conf:3: '#' starts a comment only at the start" } },
        /* sections */
        { "[deamon]\nautodiscover = yes\n",
          { "bad.conf:1: unknown section [deamon]; the sections are [daemon], [device NAME], [profile NAME] "
            "and [thermal NAME]" } },
        { "[devices gpu]\n", { "bad.conf:1: unknown section [devices gpu]" } },
        { "[device]\n", { "bad.conf:1: [device] needs a name: [device NAME]" } },
        { "[device a/b]\npath = /sys/class/devfreq/x\n", { "bad.conf:1: 'a/b' is not a device name" } },
        { "[device ..]\n", { "bad.conf:1: '..' is not a device name" } },
        { "[device my gpu]\n", { "bad.conf:1: 'my gpu' is not a device name" } },
        { "[device a123456789b123456789c123456789d123456789e12]\n",
          { "bad.conf:1: section name longer than 49 bytes" } },
};

static Suite *suite(void) {
        Suite *s = suite_create("config-reader");
        TCase *tc;

        ADD(empty_file);
        ADD(comments_only);
        ADD(inline_comments);
        ADD(continuation);
        ADD(continuation_errors);
        ADD(long_lines);
        ADD(mib_line);
        ADD(bad_bytes);
        ADD(name_lengths);
        config_add_bad_input(s, bad_cases, ELEMENTSOF(bad_cases));

        tc = tcase_create("random_bytes");
        tcase_set_timeout(tc, 120);
        tcase_add_test(tc, test_random_bytes);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return df_test_run(suite());
}
