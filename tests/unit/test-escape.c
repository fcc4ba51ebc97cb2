/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Escaping control characters out of strings that reach a log line or a property. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "macro.h"
#include "test-helpers.h"

/* One input and its escaped form, written out by hand. */
static const struct {
        const char *in, *out;
        bool control;
} cases[] = {
        { "", "", false },
        { "gpu", "gpu", false },
        { "a\nb", "a\\nb", true },
        { "reason\n<2>forged", "reason\\n<2>forged", true },
        { "\r\t", "\\r\\t", true },
        { "\x01\x1f\x7f", "\\x01\\x1f\\x7f", true },
        { "back\\slash", "back\\slash", false },
        { "caf\xc3\xa9 \xe2\x80\xa6", "caf\xc3\xa9 \xe2\x80\xa6", false }, /* UTF-8 is kept */
        { "\x1b[31mred", "\\x1b[31mred", true },
};

START_TEST(test_escape_cases) {
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                char buf[64];
                size_t n = df_escape_control(buf, sizeof(buf), cases[i].in);

                ck_assert_str_eq(buf, cases[i].out);
                ck_assert_uint_eq(n, strlen(cases[i].out));
                ck_assert_msg(df_has_control(cases[i].in) == cases[i].control, "case %zu", i);
        }
}
END_TEST

/* A short buffer: never half an escape, always terminated, and no control character in it. */
START_TEST(test_escape_short) {
        char buf[6];

        ck_assert_uint_eq(df_escape_control(buf, sizeof(buf), "abc\ndef"), 5);
        ck_assert_str_eq(buf, "abc\\n");
        ck_assert_uint_eq(df_escape_control(buf, sizeof(buf), "ab\x01zz"), 2);
        ck_assert_str_eq(buf, "ab");
        ck_assert_uint_eq(df_escape_control(buf, 1, "abc"), 0);
        ck_assert_str_eq(buf, "");
}
END_TEST

/* Every byte value, alone and in a run: the output never holds a control character. */
START_TEST(test_escape_all_bytes) {
        char in[256], out[1024];

        for (int c = 1; c < 256; c++)
                in[c - 1] = (char) c;
        in[255] = '\0';
        df_escape_control(out, sizeof(out), in);
        ck_assert(!df_has_control(out));
        ck_assert_uint_eq(strlen(out), 255 + 3 * 29 + 1 * 3); /* 29 as \xNN, \n \r \t as two bytes */
}
END_TEST

START_TEST(test_label_value) {
        static const struct {
                const char *in, *out;
        } labels[] = {
                { "", "" },
                { "gpu", "gpu" },
                { "dev-disk-by\\x2duuid.swap", "dev-disk-by\\\\x2duuid.swap" },
                { "say \"hi\"", "say \\\"hi\\\"" },
                { "two\nlines", "two\\nlines" },
                { "tab\there", "tab\there" },
        };

        for (size_t i = 0; i < sizeof(labels) / sizeof(labels[0]); i++) {
                char *buf = NULL;
                size_t size = 0;
                FILE *f = open_memstream(&buf, &size);

                ck_assert_ptr_nonnull(f);
                df_fput_label_value(f, labels[i].in);
                ck_assert_int_eq(fclose(f), 0);
                ck_assert_str_eq(buf, labels[i].out);
                free(buf);
        }
}
END_TEST

/* UTF-8 as RFC 3629 has it: each case is a string and whether it is UTF-8. */
START_TEST(test_utf8) {
        static const struct {
                const char *s;
                bool valid;
        } utf8[] = {
                { "", true },
                { "plain ASCII", true },
                { "caf\xc3\xa9", true },       /* U+00E9 */
                { "\xe2\x82\xac", true },      /* U+20AC */
                { "\xf0\x9f\x98\x80", true },  /* U+1F600 */
                { "\xf4\x8f\xbf\xbf", true },  /* U+10FFFF, the last */
                { "caf\xe9", false },          /* Latin-1 */
                { "\xc3", false },             /* cut short */
                { "\xe2\x82", false },         /* cut short */
                { "\xc0\xaf", false },         /* overlong '/' */
                { "\xe0\x80\xaf", false },     /* overlong '/' */
                { "\xed\xa0\x80", false },     /* U+D800, a surrogate */
                { "\xf4\x90\x80\x80", false }, /* U+110000, beyond Unicode */
                { "\xff", false },
                { "\x80", false }, /* a continuation byte alone */
        };

        for (size_t i = 0; i < ELEMENTSOF(utf8); i++)
                ck_assert_msg(
                        df_utf8_valid(utf8[i].s, strlen(utf8[i].s)) == utf8[i].valid, "case %zu: expected %s",
                        i, utf8[i].valid ? "valid" : "invalid");
}
END_TEST

static Suite *escape_suite(void) {
        Suite *s = suite_create("escape");
        TCase *tc = tcase_create("escape");

        tcase_add_test(tc, test_escape_cases);
        tcase_add_test(tc, test_escape_short);
        tcase_add_test(tc, test_escape_all_bytes);
        tcase_add_test(tc, test_label_value);
        tcase_add_test(tc, test_utf8);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return df_test_run(escape_suite());
}
