/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Persisted runtime choices (SetGovernor, SetFrequency, SetTunable, SetOperatingPoint), each with
 * the configuration value in force when it was made, in the state directory. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/*
 * Keys: "governor", "frequency", "tunable:NAME", "opp:FREQ_HZ". Values are strings; the
 * configuration value is "-" when the configuration did not set the key.
 */
struct state_choice {
        char *device;
        char *key;
        char *value;
        char *config;
};

struct state {
        char *file;     /* <state-dir>/state */
        bool read_only; /* --dry-run: choices live in memory only */
        struct state_choice *choices;
        size_t n;
};

int state_load(const char *state_dir, bool read_only, struct state **ret);
struct state *state_free(struct state *s);

const struct state_choice *state_get(const struct state *s, const char *device, const char *key);

/* Record a choice (replacing one of the same key) and save. */
int state_set(struct state *s, const char *device, const char *key, const char *value, const char *config);

/* Forget choices whose key equals `key`, or starts with it when it ends in ':'; save if any went. */
int state_forget(struct state *s, const char *device, const char *key);
