/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* devfreqctl --json: a small streaming JSON writer (pretty-printed, arrays of scalars on one
 * line) and the bus values of properties as JSON, in the bus units (Hz, µs, ms). */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "devfreqctl.h"

void json_init(struct json *j, FILE *f) {
        *j = (struct json){ .f = f };
}

static void indent(struct json *j) {
        fputc('\n', j->f);
        for (unsigned i = 0; i < j->depth; i++)
                fputs("  ", j->f);
}

/* Before a value or a key: the comma and the line break its container wants. */
static void prefix(struct json *j) {
        if (j->after_key) {
                j->after_key = false;
                return;
        }
        if (j->depth == 0)
                return;
        if (!j->first[j->depth])
                fputc(',', j->f);
        if (j->inline_[j->depth]) {
                if (!j->first[j->depth])
                        fputc(' ', j->f);
        } else
                indent(j);
        j->first[j->depth] = false;
}

static void begin(struct json *j, char c, bool inline_) {
        prefix(j);
        fputc(c, j->f);
        if (j->depth + 1 < JSON_DEPTH_MAX)
                j->depth++;
        j->first[j->depth] = true;
        j->inline_[j->depth] = inline_;
}

static void end(struct json *j, char c) {
        bool empty = j->first[j->depth], inline_ = j->inline_[j->depth];

        if (j->depth > 0)
                j->depth--;
        if (!empty && !inline_)
                indent(j);
        fputc(c, j->f);
}

static void write_string(FILE *f, const char *s) {
        fputc('"', f);
        for (; *s; s++) {
                unsigned char c = (unsigned char) *s;
                switch (c) {
                case '"':
                        fputs("\\\"", f);
                        break;
                case '\\':
                        fputs("\\\\", f);
                        break;
                case '\n':
                        fputs("\\n", f);
                        break;
                case '\t':
                        fputs("\\t", f);
                        break;
                case '\r':
                        fputs("\\r", f);
                        break;
                default:
                        /* D-Bus strings are valid UTF-8: only control characters need escaping. */
                        if (c < 0x20 || c == 0x7f)
                                fprintf(f, "\\u%04x", c);
                        else
                                fputc(c, f);
                }
        }
        fputc('"', f);
}

void json_key(struct json *j, const char *key) {
        prefix(j);
        write_string(j->f, key);
        fputs(": ", j->f);
        j->after_key = true;
}

void json_begin_object(struct json *j, bool inline_) {
        begin(j, '{', inline_);
}

void json_end_object(struct json *j) {
        end(j, '}');
}

void json_begin_array(struct json *j, bool inline_) {
        begin(j, '[', inline_);
}

void json_end_array(struct json *j) {
        end(j, ']');
}

void json_string(struct json *j, const char *s) {
        prefix(j);
        write_string(j->f, s);
}

void json_uint(struct json *j, uint64_t v) {
        prefix(j);
        fprintf(j->f, "%" PRIu64, v);
}

void json_int(struct json *j, int64_t v) {
        prefix(j);
        fprintf(j->f, "%" PRId64, v);
}

void json_bool(struct json *j, bool b) {
        prefix(j);
        fputs(b ? "true" : "false", j->f);
}

int json_finish(struct json *j) {
        fputc('\n', j->f);
        return fflush(j->f) == 0 && !ferror(j->f) ? 0 : -EIO;
}

/* A property as "Name": value; unknown types as null. */
void json_prop(struct json *j, const struct prop *p) {
        const char *sig = p->signature;

        json_key(j, p->name);
        if (streq(sig, "s") || streq(sig, "o"))
                json_string(j, p->str);
        else if (streq(sig, "t") || streq(sig, "u"))
                json_uint(j, p->num);
        else if (streq(sig, "b"))
                json_bool(j, p->num);
        else if (streq(sig, "as") || streq(sig, "ao")) {
                json_begin_array(j, true);
                for (size_t i = 0; i < p->n; i++)
                        json_string(j, p->strv[i]);
                json_end_array(j);
        } else if (streq(sig, "at")) {
                json_begin_array(j, true);
                for (size_t i = 0; i < p->n; i++)
                        json_uint(j, p->nums[i]);
                json_end_array(j);
        } else if (streq(sig, "a(tuub)")) {
                json_begin_array(j, false);
                for (size_t i = 0; i < p->n; i++) {
                        json_begin_object(j, true);
                        json_key(j, "frequency");
                        json_uint(j, p->opps[i].freq);
                        json_key(j, "microvolt");
                        json_uint(j, p->opps[i].microvolt);
                        json_key(j, "latency_us");
                        json_uint(j, p->opps[i].latency_us);
                        json_key(j, "enabled");
                        json_bool(j, p->opps[i].enabled);
                        json_end_object(j);
                }
                json_end_array(j);
        } else if (streq(sig, "a(ssbtx)")) {
                json_begin_array(j, false);
                for (size_t i = 0; i < p->n; i++) {
                        json_begin_object(j, true);
                        json_key(j, "name");
                        json_string(j, p->rules[i].name);
                        json_key(j, "zone");
                        json_string(j, p->rules[i].zone);
                        json_key(j, "tripped");
                        json_bool(j, p->rules[i].tripped);
                        json_key(j, "cap");
                        json_uint(j, p->rules[i].cap);
                        json_key(j, "millicelsius");
                        json_int(j, p->rules[i].millicelsius);
                        json_end_object(j);
                }
                json_end_array(j);
        } else if (streq(sig, "a{su}")) {
                json_begin_object(j, false);
                for (size_t i = 0; i < p->n; i++) {
                        json_key(j, p->strv[i]);
                        json_uint(j, p->nums[i]);
                }
                json_end_object(j);
        } else {
                prefix(j);
                fputs("null", j->f);
        }
}

void json_props(struct json *j, const struct props *ps) {
        for (size_t i = 0; i < ps->n; i++)
                json_prop(j, &ps->v[i]);
}
