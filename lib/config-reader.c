/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reading the files: a line reader that feeds ini_parse_stream(), counting lines, checking bytes and
 * mirroring inih's rules, the section headers, and the main file and the drop-in directory. */

#include <assert.h>
#include <errno.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config-internal.h"
#include "escape.h"
#include "macro.h"
#include "names.h"

static void rstrip(char *s) {
        size_t n = strlen(s);

        while (n > 0 && config_is_space((unsigned char) s[n - 1]))
                s[--n] = '\0';
}

/* --- sections --------------------------------------------------------------------------------- */

static int device_get(struct parser *p, const char *name, size_t *ret) {
        struct df_config *c = p->config;
        struct df_config_device *d;

        if (df_strmap_find(&p->device_index, name, strlen(name), ret))
                return 0;
        if (!GROW(p->device_bad, c->n_devices))
                return config_oom(p);
        d = GROW(c->devices, c->n_devices);
        if (!d)
                return config_oom(p);
        d->name = strdup(name);
        if (!d->name)
                return config_oom(p);
        if (df_strmap_insert(&p->device_index, d->name, strlen(d->name), c->n_devices) < 0) {
                free(d->name);
                d->name = NULL;
                return config_oom(p);
        }
        d->loc = (struct df_location){ .file = p->file, .line = p->line };
        d->max_freq = UINT64_MAX;
        d->load = DF_LOAD_NONE;
        d->opp_step = DF_CONFIG_DEFAULT_OPP_STEP;
        *ret = c->n_devices++;
        return 0;
}

/* A "[…]" header: `name` is the text between the brackets, `rest` what follows the ']'. */
static int section_begin(struct parser *p, char *name, const char *rest) {
        size_t n = strlen(name);
        char *s;

        p->section = SECTION_IGNORED;
        rest += strspn(rest, " \t");
        if (*rest == '#')
                config_report_line(
                        p, p->line, "'#' starts a comment only at the start of a line; use ';' after a value");
        else if (*rest && *rest != ';')
                config_report_line(p, p->line, "unexpected text after ']'");

        /* inih would truncate it silently. */
        if (n > NAME_LEN_MAX)
                return config_report_line(p, p->line, "section name longer than %u bytes", NAME_LEN_MAX);
        rstrip(name);
        name += strspn(name, " \t");

        if (streq(name, "daemon")) {
                p->section = SECTION_DAEMON;
                return 0;
        }
        if (config_startswith(name, "profile") && (!name[7] || config_is_space((unsigned char) name[7])))
                return config_profile_begin(p, name + 7 + strspn(name + 7, " \t"));
        if (config_startswith(name, "thermal") && (!name[7] || config_is_space((unsigned char) name[7])))
                return config_thermal_begin(p, name + 7 + strspn(name + 7, " \t"));
        if (!config_startswith(name, "device") || (name[6] && !config_is_space((unsigned char) name[6])))
                return config_report_line(
                        p, p->line,
                        "unknown section [%s]; the sections are [daemon], [device NAME], [profile NAME] and "
                        "[thermal NAME]",
                        name);
        s = name + 6;
        s += strspn(s, " \t");
        if (!*s)
                return config_report_line(p, p->line, "[device] needs a name: [device NAME]");
        if (!df_name_valid(s))
                return config_report_line(
                        p, p->line, "'%s' is not a device name (printable, no '/', not '.' or '..')", s);
        if (device_get(p, s, &p->device) < 0)
                return -ENOMEM;
        p->section = SECTION_DEVICE;
        return 0;
}

/* --- the reader ------------------------------------------------------------------------------- */

static int source_getc(struct parser *p) {
        int c;

        if (p->getc) {
                c = p->getc(p->stream);
                if (c == CONFIG_READ_ERROR) {
                        p->read_error = true;
                        return EOF;
                }
                return c;
        }
        if (p->pos >= p->size)
                return EOF;
        return (unsigned char) p->text[p->pos++];
}

/* NUL, control characters (tab allowed, CR only before the newline), and UTF-8. */
static bool line_bytes_valid(struct parser *p, size_t len) {
        for (size_t i = 0; i < len; i++) {
                unsigned char c = (unsigned char) p->buf[i];

                if (c == '\0') {
                        config_report_line(p, p->line, "contains a NUL byte");
                        return false;
                }
                if ((c < 0x20 && c != '\t' && !(c == '\r' && i == len - 1)) || c == 0x7f) {
                        config_report_line(p, p->line, "contains the control character 0x%02x", c);
                        return false;
                }
        }
        if (!df_utf8_valid(p->buf, len)) {
                config_report_line(p, p->line, "not valid UTF-8");
                return false;
        }
        return true;
}

/* inih's find_chars_or_comment(): the first of `chars`, or a ';' after whitespace, or the end. */
static char *find_chars_or_comment(char *s, const char *chars) {
        bool was_space = false;

        for (; *s; s++) {
                if ((chars && strchr(chars, *s)) || (was_space && *s == ';'))
                        break;
                was_space = config_is_space((unsigned char) *s);
        }
        return s;
}

static int refuse_line(struct parser *p) {
        return config_report_line(p, p->line, "expected 'key = value' or '[section]'");
}

/* Classify a line the way ini_parse_stream() does; false: refused, inih gets an empty line. */
static bool classify(struct parser *p) {
        _cleanup_free_ char *name = NULL;
        char *start = p->buf, *end;

        if (p->line == 1 && config_startswith(start, "\xEF\xBB\xBF"))
                start += 3;
        start += strspn(start, " \t\r");
        rstrip(start);

        if (*start == '\0' || *start == ';' || *start == '#')
                return true;
        if (p->prev_name && start > p->buf) {
                /* Stripped here: some libinih versions keep an inline comment on continuation lines. */
                *find_chars_or_comment(start, NULL) = '\0';
                rstrip(start);
                p->continuation = start;
                p->kind = LINE_CONTINUATION;
                return true;
        }
        if (*start != '[') {
                end = find_chars_or_comment(start, "=:");
                if (*end != '=' && *end != ':') {
                        refuse_line(p);
                        return false;
                }
                config_flush(p);
                p->prev_name = end > start;
                p->kind = LINE_KEY;
                return true;
        }

        end = find_chars_or_comment(start + 1, "]");
        if (*end != ']') {
                refuse_line(p);
                return false;
        }
        config_flush(p);
        p->prev_name = false;
        name = strndup(start + 1, (size_t) (end - start - 1));
        if (!name) {
                (void) config_oom(p);
                return false;
        }
        (void) section_begin(p, name, end + 1);
        return true;
}

/* inih's reader: one line a call, in bounded memory whatever its length. A refused line reaches inih
 * empty, which changes none of its state, so its idea of the previous key stays ours. */
static char *reader(char *str, int num, void *stream) {
        struct parser *p = stream;
        bool newline = false, overlong = false;
        size_t len = 0, indent;
        int c;

        if (p->kind != LINE_OTHER && !p->handled)
                refuse_line(p); /* inih disagreed with our reading of the previous line */
        p->kind = LINE_OTHER;
        p->handled = false;

        while ((c = source_getc(p)) != EOF) {
                if (c == '\n') {
                        newline = true;
                        break;
                }
                if (!config_is_space(c))
                        p->content = true;
                if (len < LINE_CONTENT_MAX)
                        p->buf[len++] = (char) c;
                else
                        overlong = true;
        }
        if (len == 0 && !newline)
                return NULL;
        p->line++;
        p->buf[len] = '\0';
        str[0] = '\0';

        if (overlong || num < 0 || len + 1 > (size_t) num)
                config_report_line(p, p->line, "line longer than %u bytes", LINE_CONTENT_MAX + 1);
        else if (line_bytes_valid(p, len) && classify(p)) {
                memcpy(str, p->buf, len + 1);
                return str;
        }

        /* A refused section header leaves its section: its keys must not land in the previous one. */
        indent = strspn(p->buf, " \t");
        if (p->buf[indent] == '[' && (indent == 0 || !p->prev_name)) {
                config_flush(p);
                p->prev_name = false;
                p->section = SECTION_IGNORED;
        }
        return str;
}

static int handler(void *user, const char *section, const char *name, const char *value) {
        struct parser *p = user;
        char *joined;

        p->handled = true;
        if (p->oom)
                return 1;
        if (p->kind == LINE_KEY) {
                free(p->key);
                free(p->value);
                p->key = strdup(name);
                p->value = strdup(value);
                p->key_line = p->line;
                if (!p->key || !p->value)
                        (void) config_oom(p);
        } else if (p->kind == LINE_CONTINUATION && p->key) {
                if (asprintf(&joined, "%s%s%s", p->value, *p->value ? " " : "", p->continuation) < 0) {
                        (void) config_oom(p);
                        return 1;
                }
                free(p->value);
                p->value = joined;
        }
        return 1; /* errors are ours to collect; inih's count would stop at the first */
}

/* Parse one source, a stream of bytes or memory, as the next file of the model. */
void config_parse_source(
        struct parser *p, const char *path, config_getc_t getc, void *stream, const char *text, size_t size) {
        char **slot;
        int r;

        assert(p);
        assert(path);

        slot = GROW(p->config->files, p->config->n_files);
        if (!slot || !(*slot = strdup(path))) {
                (void) config_oom(p);
                return;
        }
        p->file = p->config->files[p->config->n_files++];
        p->getc = getc;
        p->stream = stream;
        p->read_error = false;
        p->text = text;
        p->size = size;
        p->pos = 0;
        p->line = 0;
        p->content = false;
        p->kind = LINE_OTHER;
        p->prev_name = false;
        p->section = SECTION_NONE;

        r = ini_parse_stream(reader, p, handler, p);
        if (p->kind != LINE_OTHER && !p->handled)
                refuse_line(p);
        p->kind = LINE_OTHER;
        config_flush(p);
        if (r == -2)
                (void) config_oom(p);
        else if (r > 0)
                config_report_line(
                        p, (unsigned) r, "expected 'key = value' or '[section]'"); /* we refuse first */
        if (p->read_error)
                config_report_line(p, 0, "read error");
        else if (!p->content)
                config_report_line(p, 1, "the file is empty");
}
