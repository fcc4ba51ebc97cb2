/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* devfreqctl's reading commands: status, show, requests and stats, as text for people or as
 * one JSON document. */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "devfreqctl.h"
#include "stats.h"
#include "strv.h"
#include "units.h"

/* --- a text table: the first row is the header; columns padded, the last one not ---------- */

struct table {
        size_t n_columns;
        char **cells;
        size_t n_cells;
        int failed;
};

static void table_add(struct table *t, const char *fmt, ...) _printf_(2, 3);
static void table_add(struct table *t, const char *fmt, ...) {
        char *cell;
        va_list ap;

        if (t->failed)
                return;
        va_start(ap, fmt);
        if (vasprintf(&cell, fmt, ap) < 0 || strv_consume(&t->cells, &t->n_cells, cell) < 0)
                t->failed = -ENOMEM;
        va_end(ap);
}

/* The header row, NULL-terminated: it sets the number of columns. */
static void table_header(struct table *t, const char *const *names) {
        for (t->n_columns = 0; names[t->n_columns]; t->n_columns++)
                table_add(t, "%s", names[t->n_columns]);
}

static void table_done(struct table *t) {
        t->cells = strv_free(t->cells, t->n_cells);
}

static int table_print(struct table *t) {
        size_t width[16] = {};

        if (t->failed || t->n_columns > ELEMENTSOF(width))
                return ctl_fail(NULL, "out of memory");
        for (size_t i = 0; i < t->n_cells; i++)
                width[i % t->n_columns] = MAX(width[i % t->n_columns], strlen(t->cells[i]));
        for (size_t i = 0; i < t->n_cells; i++) {
                bool last = i % t->n_columns == t->n_columns - 1;
                printf("%-*s%s", last ? 0 : (int) width[i % t->n_columns], t->cells[i], last ? "\n" : "  ");
        }
        return EXIT_SUCCESS;
}

static bool is_gone(const sd_bus_error *error) {
        return sd_bus_error_has_names(error, SD_BUS_ERROR_UNKNOWN_OBJECT, SD_BUS_ERROR_UNKNOWN_INTERFACE);
}

/* --- status ----------------------------------------------------------------------------------- */

/* Only a device devfreqd samples has a load; in clamp mode the kernel's governor samples, and a
 * load of 0 % would mislead. */
static bool load_known(const struct props *ps) {
        return props_num(ps, "PollingInterval") > 0 && streq(props_str(ps, "Mode"), "govern");
}

struct device_list {
        struct props *v;
        size_t n;
};

static void device_list_done(struct device_list *l) {
        for (size_t i = 0; i < l->n; i++)
                props_done(&l->v[i]);
        free(l->v);
}

/* Every device's properties, in ListDevices order (by name); devices gone meanwhile are left out. */
static int list_devices(struct ctl *c, struct device_list *ret) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *name, *path;
        int r;

        r = sd_bus_call_method(
                c->bus, BUS_NAME, OBJECT_ROOT, IFACE_MANAGER, "ListDevices", &error, &reply, NULL);
        if (r >= 0)
                r = sd_bus_message_enter_container(reply, 'a', "(so)");
        if (r < 0)
                return ctl_bus_error(NULL, &error, r);
        while ((r = sd_bus_message_read(reply, "(so)", &name, &path)) > 0) {
                _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *all = NULL;
                struct props *v;

                r = sd_bus_call_method(
                        c->bus, BUS_NAME, path, IFACE_PROPERTIES, "GetAll", &e, &all, "s", IFACE_DEVICE);
                if (r < 0 && is_gone(&e))
                        continue;
                if (r < 0)
                        return ctl_bus_error(name, &e, r);
                v = GROW(ret->v, ret->n);
                if (!v)
                        return ctl_fail(NULL, "out of memory");
                r = props_read(all, v);
                if (r < 0)
                        return ctl_bus_error(name, NULL, r);
                ret->n++;
        }
        if (r < 0)
                return ctl_bus_error(NULL, NULL, r);
        return EXIT_SUCCESS;
}

static void format_frequency_cell(struct table *t, const struct props *ps, const char *name) {
        char buf[DF_FREQ_STRING_MAX];
        table_add(t, "%s", df_format_frequency(buf, props_num(ps, name)));
}

/* One line per tripped rule under the profile line; nothing without rules. */
static void print_tripped(const struct prop *rules) {
        size_t tripped = 0;

        for (size_t i = 0; rules && i < rules->n; i++) {
                _cleanup_free_ char *line = NULL;
                if (!rules->rules[i].tripped)
                        continue;
                line = format_rule(&rules->rules[i]);
                printf("Thermal: %s\n", line ? line : rules->rules[i].name);
                tripped++;
        }
        if (rules && rules->n > 0 && tripped == 0)
                printf("Thermal: %zu rule%s, none tripped\n", rules->n, rules->n == 1 ? "" : "s");
}

static int status_json(const struct device_list *l) {
        struct json j;

        json_init(&j, stdout);
        json_begin_array(&j, false);
        for (size_t i = 0; i < l->n; i++) {
                json_begin_object(&j, false);
                json_props(&j, &l->v[i]);
                json_end_object(&j);
        }
        json_end_array(&j);
        return json_finish(&j) < 0 ? EXIT_DAEMON : EXIT_SUCCESS;
}

/* The table; the CAP column only on a daemon with thermal rules. */
static int status_table(const struct device_list *l, bool caps) {
        static const char *const header[] = {
                "NAME", "KIND", "MODE", "GOVERNOR", "CURRENT", "MIN", "MAX", "LOAD", "REQUESTS", "CAP", NULL,
        };
        static const char *const header_without_cap[] = {
                "NAME", "KIND", "MODE", "GOVERNOR", "CURRENT", "MIN", "MAX", "LOAD", "REQUESTS", NULL,
        };
        struct table t = {};
        int status;

        table_header(&t, caps ? header : header_without_cap);
        for (size_t i = 0; i < l->n; i++) {
                const struct props *ps = &l->v[i];
                const struct prop *requests = props_get(ps, "Requests");

                table_add(&t, "%s", props_str(ps, "Name"));
                table_add(&t, "%s", props_str(ps, "Kind"));
                table_add(&t, "%s", props_str(ps, "Mode"));
                table_add(&t, "%s", props_str(ps, "Governor"));
                format_frequency_cell(&t, ps, "CurrentFrequency");
                format_frequency_cell(&t, ps, "MinFrequency");
                format_frequency_cell(&t, ps, "MaxFrequency");
                if (load_known(ps))
                        table_add(&t, "%" PRIu64 "%%", props_num(ps, "Load"));
                else
                        table_add(&t, "-");
                table_add(&t, "%zu", requests ? requests->n : 0);
                if (caps && props_num(ps, "ThermalCap") > 0)
                        format_frequency_cell(&t, ps, "ThermalCap");
                else if (caps)
                        table_add(&t, "-");
        }
        status = table_print(&t);
        table_done(&t);
        return status;
}

int cmd_status(struct ctl *c) {
        _cleanup_(device_list_done) struct device_list l = {};
        _cleanup_(props_done) struct props manager = {};
        _cleanup_free_ char *profile = NULL;
        const struct prop *rules;
        int status;

        status = list_devices(c, &l);
        if (status != EXIT_SUCCESS)
                return status;
        if (c->json)
                return status_json(&l);
        if (ctl_get_all(c, NULL, OBJECT_ROOT, IFACE_MANAGER, &manager) < 0)
                return EXIT_DAEMON; /* said why */
        status = ctl_profile_phrase(&manager, &profile);
        if (status != EXIT_SUCCESS)
                return status;
        printf("Profile: %s\n", profile);
        rules = props_get(&manager, "ThermalRules");
        print_tripped(rules);
        if (l.n == 0) {
                printf("No devices.\n");
                return EXIT_SUCCESS;
        }
        return status_table(&l, rules && rules->n > 0);
}

/* --- show ------------------------------------------------------------------------------------- */

/* The tripped rules capping the device at `path` at `cap`, NULL when none (or the daemon cannot
 * say). */
static char *capping_rules(struct ctl *c, const char *path, uint64_t cap) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(props_done) struct props manager = {};
        _cleanup_free_ struct ctl_blame_entry *blame = NULL;
        size_t n_blame = 0;

        if (ctl_get_all(c, NULL, OBJECT_ROOT, IFACE_MANAGER, &manager) < 0 ||
            ctl_get_blame(c, path, &error, &reply, &blame, &n_blame) < 0)
                return NULL;
        return ctl_capping_rules(props_get(&manager, "ThermalRules"), cap, blame, n_blame);
}

int cmd_show(struct ctl *c) {
        const char *name = c->args[0];
        _cleanup_free_ char *path = NULL, *sep = NULL;
        _cleanup_(props_done) struct props ps = {};
        size_t width = 0;
        struct json j;

        if (ctl_device_path(c, name, &path) < 0 || ctl_get_all(c, name, path, IFACE_DEVICE, &ps) < 0)
                return EXIT_DAEMON;

        if (c->json) {
                json_init(&j, stdout);
                json_begin_object(&j, false);
                json_props(&j, &ps);
                json_end_object(&j);
                return json_finish(&j) < 0 ? EXIT_DAEMON : EXIT_SUCCESS;
        }

        for (size_t i = 0; i < ps.n; i++)
                width = MAX(width, strlen(ps.v[i].name));
        /* Operating points one per line, under the first. */
        if (asprintf(&sep, "\n%*s", (int) width + 2, "") < 0)
                return ctl_fail(NULL, "out of memory");
        for (size_t i = 0; i < ps.n; i++) {
                _cleanup_free_ char *text = NULL, *by = NULL;

                if (streq(ps.v[i].name, "Load") && !load_known(&ps))
                        text = strdup("- (devfreqd takes no samples of it)");
                else if (prop_format(&ps.v[i], props_num(&ps, "ThermalCap"), sep, &text) < 0)
                        text = NULL;
                if (!text)
                        return ctl_fail(NULL, "out of memory");
                if (streq(ps.v[i].name, "ThermalCap") && ps.v[i].num > 0)
                        by = capping_rules(c, path, ps.v[i].num);
                printf("%*s: %s%s%s%s\n", (int) width, ps.v[i].name, text, by ? " (rule " : "", strempty(by),
                       by ? ")" : "");
        }
        return EXIT_SUCCESS;
}

/* --- requests --------------------------------------------------------------------------------- */

struct request_entry {
        char *path;
        struct props props;
        char *device; /* the device's name */
};

struct request_list {
        struct request_entry *v;
        size_t n;
        struct props *devices; /* path and name of every device, as seen in the same answer */
        size_t n_devices;
        char **device_paths;
};

static void request_list_done(struct request_list *l) {
        for (size_t i = 0; i < l->n; i++) {
                free(l->v[i].path);
                free(l->v[i].device);
                props_done(&l->v[i].props);
        }
        free(l->v);
        for (size_t i = 0; i < l->n_devices; i++)
                props_done(&l->devices[i]);
        free(l->devices);
        strv_free(l->device_paths, l->n_devices);
}

static int collect_object(const char *path, const char *iface, struct props *ps, void *userdata) {
        struct request_list *l = userdata;

        struct request_entry *e;

        if (streq(iface, IFACE_DEVICE)) {
                /* The path first: a device is only counted with both in place. */
                size_t n_paths = l->n_devices;
                struct props *d = GROW(l->devices, l->n_devices);

                if (!d || strv_push(&l->device_paths, &n_paths, path) < 0)
                        return -ENOMEM;
                *d = TAKE_GENERIC(*ps, struct props, (struct props){});
                l->n_devices++;
                return 0;
        }
        e = GROW(l->v, l->n);
        if (!e)
                return -ENOMEM;
        e->path = strdup(path);
        if (!e->path)
                return -ENOMEM;
        e->props = TAKE_GENERIC(*ps, struct props, (struct props){});
        l->n++;
        return 0;
}

static int compare_requests(const void *a, const void *b) {
        const struct request_entry *x = a, *y = b;
        uint64_t cx = props_num(&x->props, "CreatedUsec"), cy = props_num(&y->props, "CreatedUsec");
        int d = strcmp(x->device, y->device);

        if (d != 0)
                return d;
        return cx < cy ? -1 : cx > cy;
}

/* "in 29.5 s", to the tenth of a second. */
static const char *format_expiry(char buf[static DF_DURATION_STRING_MAX + 8], uint64_t expires) {
        char d[DF_DURATION_STRING_MAX];
        uint64_t now;

        if (expires == 0)
                return "-";
        now = df_now_usec(CLOCK_REALTIME);
        if (expires <= now)
                return "now";
        (void) snprintf(
                buf, DF_DURATION_STRING_MAX + 8, "in %s",
                df_format_duration(d, (expires - now) / 100000 * 100000));
        return buf;
}

static void print_requests(const struct request_list *l) {
        static const char *const header[] = {
                "DEVICE", "ID", "TYPE", "VALUE", "OWNER", "UID", "PID", "EXPIRES", "REASON", NULL,
        };
        struct table t = {};

        table_header(&t, header);
        for (size_t i = 0; i < l->n; i++) {
                const struct props *ps = &l->v[i].props;
                char value[32], expiry[DF_DURATION_STRING_MAX + 8];
                _cleanup_free_ char *id = NULL;

                table_add(&t, "%s", l->v[i].device);
                table_add(&t, "%s", object_name(l->v[i].path, &id) >= 0 ? id : l->v[i].path);
                table_add(&t, "%s", props_str(ps, "Type"));
                table_add(&t, "%s", format_request_value(value, props_str(ps, "Type"), props_num(ps, "Value")));
                table_add(&t, "%s", props_str(ps, "Owner"));
                table_add(&t, "%" PRIu64, props_num(ps, "UID"));
                table_add(&t, "%" PRIu64, props_num(ps, "PID"));
                table_add(&t, "%s", format_expiry(expiry, props_num(ps, "ExpiresUsec")));
                table_add(&t, "%s", *props_str(ps, "Reason") ? props_str(ps, "Reason") : "-");
        }
        (void) table_print(&t);
        table_done(&t);
}

int cmd_requests(struct ctl *c) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(request_list_done) struct request_list l = {};
        _cleanup_free_ char *only = NULL;
        size_t n = 0;
        struct json j;
        int r;

        if (c->n_args > 0 && ctl_device_path(c, c->args[0], &only) < 0)
                return EXIT_DAEMON;
        r = sd_bus_call_method(
                c->bus, BUS_NAME, OBJECT_ROOT, IFACE_OBJECT_MANAGER, "GetManagedObjects", &error, &reply, NULL);
        if (r >= 0)
                r = read_managed_objects(reply, collect_object, &l);
        if (r < 0)
                return ctl_bus_error(NULL, &error, r);

        /* Keep the device's requests only, and name each request's device. */
        for (size_t i = 0; i < l.n; i++) {
                struct request_entry e = l.v[i];
                const char *device = props_str(&e.props, "Device");

                if (only && !streq(device, only)) {
                        free(e.path);
                        props_done(&e.props);
                        continue;
                }
                for (size_t k = 0; k < l.n_devices && !e.device; k++)
                        if (streq(l.device_paths[k], device))
                                e.device = strdup(props_str(&l.devices[k], "Name"));
                if (!e.device && object_name(device, &e.device) < 0)
                        e.device = strdup(device);
                if (!e.device)
                        return ctl_fail(NULL, "out of memory");
                l.v[n++] = e;
        }
        l.n = n;
        if (l.n > 1)
                qsort(l.v, l.n, sizeof(l.v[0]), compare_requests);

        if (c->json) {
                json_init(&j, stdout);
                json_begin_array(&j, false);
                for (size_t i = 0; i < l.n; i++) {
                        json_begin_object(&j, false);
                        json_key(&j, "Path");
                        json_string(&j, l.v[i].path);
                        json_key(&j, "DeviceName");
                        json_string(&j, l.v[i].device);
                        json_props(&j, &l.v[i].props);
                        json_end_object(&j);
                }
                json_end_array(&j);
                return json_finish(&j) < 0 ? EXIT_DAEMON : EXIT_SUCCESS;
        }
        if (l.n == 0)
                printf("No requests.\n");
        else
                print_requests(&l);
        return EXIT_SUCCESS;
}

/* --- stats ------------------------------------------------------------------------------------ */

struct statistics {
        const uint64_t *freqs, *time_ms;
        uint64_t *trans; /* n * n */
        size_t n;
        uint64_t total;
};

static int read_statistics(sd_bus_message *m, struct statistics *s) {
        const void *freqs, *ms, *row;
        size_t size_f, size_ms, size_row, i = 0;
        int r;

        r = sd_bus_message_read_array(m, 't', &freqs, &size_f);
        if (r >= 0)
                r = sd_bus_message_read_array(m, 't', &ms, &size_ms);
        if (r < 0)
                return r;
        s->n = size_f / sizeof(uint64_t);
        if (size_ms != size_f)
                return -EBADMSG;
        s->freqs = freqs;
        s->time_ms = ms;
        s->trans = calloc(s->n * s->n + 1, sizeof(uint64_t));
        if (!s->trans)
                return -ENOMEM;
        r = sd_bus_message_enter_container(m, 'a', "at");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_read_array(m, 't', &row, &size_row)) > 0) {
                if (i >= s->n || size_row != s->n * sizeof(uint64_t))
                        return -EBADMSG;
                memcpy(s->trans + i++ * s->n, row, size_row);
        }
        if (r < 0)
                return r;
        if (i != s->n)
                return -EBADMSG;
        r = sd_bus_message_exit_container(m);
        if (r < 0)
                return r;
        return sd_bus_message_read_basic(m, 't', &s->total);
}

static void print_statistics_json(const char *name, const struct statistics *s, uint64_t current) {
        struct json j;

        json_init(&j, stdout);
        json_begin_object(&j, false);
        json_key(&j, "device");
        json_string(&j, name);
        json_key(&j, "current_frequency");
        json_uint(&j, current);
        json_key(&j, "frequencies");
        json_begin_array(&j, true);
        for (size_t i = 0; i < s->n; i++)
                json_uint(&j, s->freqs[i]);
        json_end_array(&j);
        json_key(&j, "time_in_state_ms");
        json_begin_array(&j, true);
        for (size_t i = 0; i < s->n; i++)
                json_uint(&j, s->time_ms[i]);
        json_end_array(&j);
        json_key(&j, "transitions");
        json_begin_array(&j, false);
        for (size_t i = 0; i < s->n; i++) {
                json_begin_array(&j, true);
                for (size_t k = 0; k < s->n; k++)
                        json_uint(&j, s->trans[i * s->n + k]);
                json_end_array(&j);
        }
        json_end_array(&j);
        json_key(&j, "total_transitions");
        json_uint(&j, s->total);
        json_end_object(&j);
        (void) json_finish(&j);
}

int cmd_stats(struct ctl *c) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_free_ char *path = NULL, *text = NULL;
        const char *name = c->args[0];
        struct statistics s = {};
        uint64_t current = 0;
        int r;

        if (ctl_device_path(c, name, &path) < 0)
                return EXIT_DAEMON;
        /* The current frequency first: the table is the fresher of the two. */
        r = sd_bus_get_property_trivial(
                c->bus, BUS_NAME, path, IFACE_DEVICE, "CurrentFrequency", &error, 't', &current);
        if (r >= 0)
                r = sd_bus_call_method(
                        c->bus, BUS_NAME, path, IFACE_DEVICE, "GetStatistics", &error, &reply, NULL);
        if (r >= 0)
                r = read_statistics(reply, &s);
        if (r < 0) {
                free(s.trans);
                return ctl_bus_error(name, &error, r);
        }

        if (c->json)
                print_statistics_json(name, &s, current);
        else if (s.n == 0)
                printf("%s: no statistics (the kernel keeps none for this device)\n", name);
        else if (df_stats_format_table(s.freqs, s.time_ms, s.trans, s.n, s.total, current, &text) < 0)
                r = -ENOMEM;
        else
                fputs(text, stdout);
        free(s.trans);
        if (r < 0)
                return ctl_fail(NULL, "out of memory");
        return EXIT_SUCCESS;
}
