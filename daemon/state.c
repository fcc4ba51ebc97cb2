/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The state file: one tab-separated record per choice, replaced atomically on every change. */

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "logging.h"
#include "state.h"

#define STATE_HEADER "# devfreqd state v1: device key value configuration-value-when-chosen\n"

static void choice_done(struct state_choice *c) {
        free(c->device);
        free(c->key);
        free(c->value);
        free(c->config);
}

static int append(struct state *s, const char *device, const char *key, const char *value, const char *config) {
        struct state_choice c = {
                .device = strdup(device),
                .key = strdup(key),
                .value = strdup(value),
                .config = strdup(config),
        };
        struct state_choice *slot;

        slot = c.device && c.key && c.value && c.config ? GROW(s->choices, s->n) : NULL;
        if (!slot) {
                choice_done(&c);
                return -ENOMEM;
        }
        *slot = c;
        s->n++;
        return 0;
}

int state_load(const char *state_dir, bool read_only, struct state **ret) {
        assert(ret);

        _cleanup_free_ char *text = NULL;
        struct state *s;
        unsigned lineno = 0;
        size_t size = 0, pos = 0;
        bool nul = false;
        int r;

        s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->read_only = read_only;
        if (asprintf(&s->file, "%s/state", state_dir) < 0) {
                free(s);
                return -ENOMEM;
        }
        r = read_file(s->file, &text, &size);
        if (r == -ENOENT) {
                *ret = s;
                return 0;
        }
        if (r < 0) {
                /* Starting without the remembered choices is better than not starting; writing over
                 * them with this run's choices would lose them for good, so this run saves none. */
                log_warning_errno(
                        r,
                        "Failed to read %s, starting without saved choices and leaving the file as it is: %m",
                        s->file);
                s->read_only = true;
                *ret = s;
                return 0;
        }
        for (char *line; (line = next_line(text, size, &pos, &nul));) {
                char *f[4];

                lineno++;
                if (line[0] == '#' || (line[0] == '\0' && !nul))
                        continue;
                if (nul || split_tabs(line, f, 4) != 4) {
                        log_warning("%s:%u: ignoring a malformed record", s->file, lineno);
                        continue;
                }
                if (state_get(s, f[0], f[1]))
                        continue;
                r = append(s, f[0], f[1], f[2], f[3]);
                if (r < 0) {
                        state_free(s);
                        return r;
                }
        }
        *ret = s;
        return 0;
}

struct state *state_free(struct state *s) {
        if (!s)
                return NULL;
        for (size_t i = 0; i < s->n; i++)
                choice_done(&s->choices[i]);
        free(s->choices);
        free(s->file);
        free(s);
        return NULL;
}

const struct state_choice *state_get(const struct state *s, const char *device, const char *key) {
        assert(s);

        for (size_t i = 0; i < s->n; i++)
                if (streq(s->choices[i].device, device) && streq(s->choices[i].key, key))
                        return &s->choices[i];
        return NULL;
}

static int state_save(const struct state *s) {
        _cleanup_free_ char *text = NULL;
        size_t size = 0;
        FILE *f;
        int r;

        if (s->read_only)
                return 0;
        if (s->n == 0) {
                if (unlink(s->file) < 0 && errno != ENOENT)
                        return log_error_errno(errno, "Failed to remove %s: %m", s->file);
                return 0;
        }
        f = open_memstream(&text, &size);
        if (!f)
                return log_oom();
        fputs(STATE_HEADER, f);
        for (size_t i = 0; i < s->n; i++)
                fprintf(f, "%s\t%s\t%s\t%s\n", s->choices[i].device, s->choices[i].key, s->choices[i].value,
                        s->choices[i].config);
        if (fclose(f) != 0)
                return log_oom();
        r = write_file_atomic(s->file, text, size);
        if (r < 0)
                return log_error_errno(r, "Failed to write %s: %m", s->file);
        return 0;
}

int state_set(struct state *s, const char *device, const char *key, const char *value, const char *config) {
        struct state_choice *c = (struct state_choice *) state_get(s, device, key);
        int r;

        assert(s);

        if (!record_value_valid(device) || !record_value_valid(key) || !record_value_valid(value) ||
            !record_value_valid(config))
                return -EINVAL;
        if (c) {
                char *v = strdup(value), *cf = strdup(config);
                if (!v || !cf) {
                        free(v);
                        free(cf);
                        return log_oom();
                }
                free(c->value);
                free(c->config);
                c->value = v;
                c->config = cf;
        } else {
                r = append(s, device, key, value, config);
                if (r < 0)
                        return log_oom();
        }
        return state_save(s);
}

static bool key_matches(const char *have, const char *key) {
        size_t n = strlen(key);

        if (n > 0 && key[n - 1] == ':')
                return strncmp(have, key, n) == 0;
        return streq(have, key);
}

int state_forget(struct state *s, const char *device_arg, const char *key_arg) {
        assert(s);

        /* The arguments may be strings of a choice this frees (a caller walking the list passes
         * the key of the entry it is looking at): compare against copies. */
        _cleanup_free_ char *device = strdup(device_arg), *key = strdup(key_arg);
        size_t kept = 0, before = s->n;

        if (!device || !key)
                return -ENOMEM;
        for (size_t i = 0; i < s->n; i++) {
                if (streq(s->choices[i].device, device) && key_matches(s->choices[i].key, key)) {
                        choice_done(&s->choices[i]);
                        continue;
                }
                s->choices[kept++] = s->choices[i];
        }
        s->n = kept;
        return kept == before ? 0 : state_save(s);
}
