/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the lib/config*.c files share: the parser's state, libinih's limits, and the reporters and
 * helpers each part calls. Private to those files; the names carry config_ as lib is linked whole. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "macro.h"
#include "strmap.h"

/* libinih's defaults are part of the format: a 200-byte line buffer holds 198 bytes, the newline
 * and the NUL; section and key names are truncated at 50 bytes with the NUL. */
#define LINE_CONTENT_MAX 198u
#define NAME_LEN_MAX 49u
#define POLLING_MIN_USEC UINT64_C(1000)
#define POLLING_MAX_USEC UINT64_C(3600000000)
#define LIMIT_MAX 1000000
#define KERNEL_GOVERNOR_LEN_MAX 15u
#define GROUP_LEN_MAX 31u

enum section_kind {
        SECTION_NONE, /* before the first header */
        SECTION_DAEMON,
        SECTION_DEVICE,
        SECTION_PROFILE,
        SECTION_THERMAL,
        SECTION_IGNORED, /* a header already reported as wrong: its keys are skipped */
};

/* How the reader classified the line it handed to inih, mirroring inih's own rules. */
enum line_kind {
        LINE_OTHER, /* blank, comment, section header, or refused (inih gets an empty line) */
        LINE_KEY,
        LINE_CONTINUATION,
};

/* A byte source of a configuration file: the next byte, EOF at its end, CONFIG_READ_ERROR when
 * reading failed. */
#define CONFIG_READ_ERROR (-2)
typedef int (*config_getc_t)(void *stream);

/* The bits of struct parser's defaults_bad. */
#define DEFAULT_MODE_BAD 1u
#define DEFAULT_GOVERNOR_BAD 2u

struct parser {
        struct df_config *config;
        struct df_config_errors *errors;
        struct df_config_errors scratch; /* errors go here when the caller collects none */
        size_t n_errors;                 /* reported by this load, dropped ones included */
        bool oom;
        /* default-mode or default-governor was refused (DEFAULT_*_BAD): the value in force is not
         * the one meant, so devices are not judged against it. A later valid or empty value of the
         * same key clears its bit. */
        unsigned defaults_bad;
        bool *device_bad;              /* per device: one of its keys was refused */
        struct df_strmap device_index; /* device name → index in config->devices */
        bool *thermal_bad;             /* per thermal rule: one of its keys was refused */

        /* The file being read, from a stream of bytes (config_getc_t) or from memory. */
        const char *file;
        config_getc_t getc;
        void *stream;
        bool read_error;
        const char *text;
        size_t size, pos;
        unsigned line;
        bool content; /* some byte that is not whitespace */
        char buf[LINE_CONTENT_MAX + 1];

        /* inih's state, mirrored. */
        enum line_kind kind;
        bool handled; /* inih called the handler for the line of kind LINE_KEY or LINE_CONTINUATION */
        const char *continuation; /* the continued text, inside buf */
        bool prev_name;           /* an indented line continues the previous value */
        enum section_kind section;
        size_t device;
        size_t profile;
        size_t thermal;

        /* The assignment being collected: continuation lines append to it. */
        char *key;
        char *value;
        unsigned key_line;
};

/*
 * The files of the configuration, each calling only those above it in this list:
 *   config.c           the model: its lookups, its destructor, the reporters and small helpers
 *   config-values.c    values several sections take: frequencies, governor and tunable names
 *   config-opp.c       the point lines of a device section
 *   config-thermal.c   [thermal NAME] sections
 *   spec.c             the device rules (the default load source), shared with validation
 *   config-profile.c   [profile NAME] sections
 *   config-validate.c  the checks across sections, once every file is read
 *   config-keys.c      the keys of [daemon] and [device NAME], and the dispatch of a whole line
 *   config-reader.c    one file's bytes, through inih, into lines and sections
 *   config-load.c      one load, from an empty model to a validated one
 *   config-files.c     (the I/O part) the files and the drop-in directory, opened safely
 */

/* config.c: the model, helpers and the reporters; each reporter returns -EINVAL. */
/* The built-in value of each [daemon] key but the lists, default-profile (none) and
 * default-governor (config_default_governor); config_new() starts from them. */
extern const struct df_config config_daemon_defaults;
extern const char config_default_governor[];
struct df_config *config_new(void);
void config_profile_done(struct df_config_profile *pr);
void config_thermal_done(struct df_config_thermal *t);
bool config_is_space(int c);
bool config_startswith(const char *s, const char *prefix);
void config_free_strv(char **v, size_t n);
_printf_(3, 4) int config_report_at(struct parser *p, const struct df_location *loc, const char *fmt, ...);
_printf_(3, 4) int config_report_line(struct parser *p, unsigned line, const char *fmt, ...);
_printf_(2, 3) int config_refuse(struct parser *p, const char *fmt, ...);
int config_oom(struct parser *p);
struct df_location config_here(const struct parser *p);
bool config_loc_before(const struct df_config *c, const struct df_location *a, const struct df_location *b);

/* config-values.c */
const char *config_governor_names(char *buf, size_t size);
bool config_kernel_governor_name_valid(const char *s);
bool config_tunable_known(const char *name);
int config_parse_tunable(struct parser *p, const char *name, const char *value, uint32_t *ret);
int config_parse_frequency(struct parser *p, const char *s, bool zero_ok, uint64_t *ret);
/* The values device section `d` gives governor `ops`: its lines that name a tunable of `ops`, over
 * the governor's defaults. */
void config_device_tunables(const struct df_config_device *d, const struct df_governor_ops *ops, uint32_t *values);
/* A whole set of `ops`'s values (each within its range) against the governor's cross rules
 * (df_governor_validate): 0, or reported at `at`, after `prefix`, with every value. */
int config_check_tunables(
        struct parser *p, const struct df_location *at, const char *prefix, const struct df_governor_ops *ops,
        const uint32_t *values);

/* config-opp.c: the point lines of a device section */
int config_apply_opp(struct parser *p, struct df_config_device *d, const char *value);
int config_apply_opp_disabled(struct parser *p, struct df_config_device *d, const char *value);
int config_apply_passive_map(struct parser *p, struct df_config_device *d, const char *value);

/* config-thermal.c: [thermal NAME] sections */
int config_thermal_begin(struct parser *p, const char *name);
int config_apply_thermal(struct parser *p, const char *key, const char *value);
void config_validate_thermals(struct parser *p);

/* config-profile.c: [profile NAME] sections */
int config_profile_begin(struct parser *p, const char *name);
int config_apply_profile_line(struct parser *p, const char *name, const char *value);
void config_validate_profiles(struct parser *p);

/* config-validate.c */
void config_validate(struct parser *p);

/* config-keys.c: a complete assignment (the collected key and value) lands in the model */
void config_flush(struct parser *p);

/* config-reader.c: parse one file's bytes, from a stream or from memory, into the model */
void config_parse_source(
        struct parser *p, const char *path, config_getc_t getc, void *stream, const char *text, size_t size);

/* config-load.c: one load, from config_begin() to config_finish() (which frees what the parser
 * holds) */
int config_begin(struct parser *p, struct df_config_errors *errors);
int config_finish(struct parser *p, struct df_config **ret);

/* config-files.c (the I/O part) */
void config_parse_file(struct parser *p, const char *path, bool missing_ok);
void config_parse_dropins(struct parser *p, const char *dir);
