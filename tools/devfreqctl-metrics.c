/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * devfreqctl metrics [FILE]: the Prometheus text exposition format, built from the bus API (the
 * manager's and devices' properties, GetStatistics, GetBlame). With FILE, written atomically (a
 * temporary file in the same directory, then rename) for node_exporter's textfile collector.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "devfreqctl.h"
#include "escape.h"

/* Binding time of one (type, owner). */
struct binding_sum {
        const char *type, *owner;
        uint64_t usec;
};

struct metrics_device {
        struct props props;
        sd_bus_message *stats; /* GetStatistics, read up to the time-in-state array */
        const uint64_t *freqs, *time_ms;
        size_t n_states;
        sd_bus_message *blame;
        struct ctl_blame_entry *entries;
        size_t n_entries;
        sd_bus_message *forgotten; /* GetForgottenBindingTime */
        struct binding_sum *sums;  /* the forgotten ones, then room for an owner per entry */
        size_t n_forgotten;
};

struct metrics {
        struct props manager;
        struct metrics_device *v;
        size_t n;
};

static void metrics_done(struct metrics *m) {
        for (size_t i = 0; i < m->n; i++) {
                props_done(&m->v[i].props);
                sd_bus_message_unref(m->v[i].stats);
                sd_bus_message_unref(m->v[i].blame);
                free(m->v[i].entries);
                sd_bus_message_unref(m->v[i].forgotten);
                free(m->v[i].sums);
        }
        free(m->v);
        props_done(&m->manager);
}

/* A label value: backslash, double quote and newline escaped. */
static void label(FILE *f, const char *name, const char *value, bool first) {
        fprintf(f, "%s%s=\"", first ? "" : ",", name);
        df_fput_label_value(f, value);
        fputc('"', f);
}

static void family(FILE *f, const char *name, const char *type, const char *help) {
        fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static const char *device_name(const struct metrics_device *d) {
        return props_str(&d->props, "Name");
}

/* name{device="…"} value, for one numeric property of every device (`skip_zero`: 0 means none). */
static void per_device(FILE *f, const struct metrics *m, const char *name, const char *property, bool skip_zero) {
        for (size_t i = 0; i < m->n; i++) {
                uint64_t v = props_num(&m->v[i].props, property);
                if (skip_zero && v == 0)
                        continue;
                fprintf(f, "%s{", name);
                label(f, "device", device_name(&m->v[i]), true);
                fprintf(f, "} %" PRIu64 "\n", v);
        }
}

static void print_info(FILE *f, const struct metrics *m) {
        const char *profile = props_str(&m->manager, "ActiveProfile");

        family(f, "devfreqd_info", "gauge", "devfreqd's version and active profile (\"\" for none).");
        fputs("devfreqd_info{", f);
        label(f, "version", props_str(&m->manager, "Version"), true);
        label(f, "profile", profile, false);
        fputs("} 1\n", f);
        family(f, "devfreqd_device_info", "gauge", "A managed device: its kind, mode and governor.");
        for (size_t i = 0; i < m->n; i++) {
                const struct props *ps = &m->v[i].props;
                fputs("devfreqd_device_info{", f);
                label(f, "device", device_name(&m->v[i]), true);
                label(f, "kind", props_str(ps, "Kind"), false);
                label(f, "mode", props_str(ps, "Mode"), false);
                label(f, "governor", props_str(ps, "Governor"), false);
                fputs("} 1\n", f);
        }
}

static void print_frequencies(FILE *f, const struct metrics *m) {
        family(f, "devfreqd_device_frequency_hertz", "gauge", "The device's current frequency.");
        per_device(f, m, "devfreqd_device_frequency_hertz", "CurrentFrequency", false);
        family(f, "devfreqd_device_min_frequency_hertz", "gauge", "The effective floor of the device's range.");
        per_device(f, m, "devfreqd_device_min_frequency_hertz", "MinFrequency", false);
        family(f, "devfreqd_device_max_frequency_hertz", "gauge",
               "The effective ceiling of the device's range.");
        per_device(f, m, "devfreqd_device_max_frequency_hertz", "MaxFrequency", false);
        family(f, "devfreqd_device_thermal_cap_hertz", "gauge",
               "The cap of tripped thermal rules on the device (devices without one are absent).");
        per_device(f, m, "devfreqd_device_thermal_cap_hertz", "ThermalCap", true);
}

/* The kernel counts in clamp mode and devfreqd in govern mode: a mode is a counter of its own, or
 * a reload that changes it would make the count jump or go down. */
static void print_transitions(FILE *f, const struct metrics *m) {
        family(f, "devfreqd_device_transitions_total", "counter",
               "Frequency transitions of the device, counted by the kernel (clamp mode) or devfreqd (govern).");
        for (size_t i = 0; i < m->n; i++) {
                fputs("devfreqd_device_transitions_total{", f);
                label(f, "device", device_name(&m->v[i]), true);
                label(f, "mode", props_str(&m->v[i].props, "Mode"), false);
                fprintf(f, "} %" PRIu64 "\n", props_num(&m->v[i].props, "TransitionCount"));
        }
}

static void print_time_in_state(FILE *f, const struct metrics *m) {
        family(f, "devfreqd_device_time_in_state_seconds_total", "counter",
               "Time the device spent at each frequency, counted by the kernel (clamp mode) or devfreqd (govern).");
        for (size_t i = 0; i < m->n; i++)
                for (size_t k = 0; k < m->v[i].n_states; k++) {
                        char hz[24];
                        snprintf(hz, sizeof(hz), "%" PRIu64, m->v[i].freqs[k]);
                        fputs("devfreqd_device_time_in_state_seconds_total{", f);
                        label(f, "device", device_name(&m->v[i]), true);
                        label(f, "mode", props_str(&m->v[i].props, "Mode"), false);
                        label(f, "frequency_hertz", hz, false);
                        fprintf(f, "} %" PRIu64 ".%03" PRIu64 "\n", m->v[i].time_ms[k] / 1000,
                                m->v[i].time_ms[k] % 1000);
                }
}

/* Devices whose points all have voltages have an energy. */
static bool has_energy(const struct metrics_device *d) {
        const struct prop *opps = props_get(&d->props, "OperatingPoints");

        if (!opps || opps->n == 0)
                return false;
        for (size_t k = 0; k < opps->n; k++)
                if (opps->opps[k].microvolt == 0)
                        return false;
        return true;
}

static void print_energy(FILE *f, const struct metrics *m) {
        family(f, "devfreqd_device_energy_relative_total", "counter",
               "Dynamic energy (time x frequency x voltage squared) in seconds at the device's top operating "
               "point, each interval with the voltages then in force; devices whose operating points have "
               "voltages.");
        for (size_t i = 0; i < m->n; i++) {
                /* The daemon's Energy, µs at the top point: charged with the voltages of the time. */
                uint64_t e = props_num(&m->v[i].props, "Energy");
                if (!has_energy(&m->v[i]))
                        continue;
                fputs("devfreqd_device_energy_relative_total{", f);
                label(f, "device", device_name(&m->v[i]), true);
                fprintf(f, "} %" PRIu64 ".%06" PRIu64 "\n", e / 1000000, e % 1000000);
        }
}

static const char *const request_types[] = { "min-frequency", "max-frequency", "latency" };

static void print_requests(FILE *f, const struct metrics *m) {
        family(f, "devfreqd_device_requests", "gauge", "Live QoS requests on the device, by type.");
        for (size_t i = 0; i < m->n; i++)
                for (size_t t = 0; t < ELEMENTSOF(request_types); t++) {
                        size_t n = 0;
                        for (size_t k = 0; k < m->v[i].n_entries; k++)
                                n += m->v[i].entries[k].id != 0 &&
                                        streq(m->v[i].entries[k].type, request_types[t]);
                        fputs("devfreqd_device_requests{", f);
                        label(f, "device", device_name(&m->v[i]), true);
                        label(f, "type", request_types[t], false);
                        fprintf(f, "} %zu\n", n);
                }
}

/* The unit of a request's owner; the daemon's own holds are owned by "profile NAME" or "thermal RULE". */
static const char *owner(const struct ctl_blame_entry *e) {
        if (!*e->unit && e->uid == 0 &&
            (strneq(e->command, "profile ", strlen("profile ")) ||
             strneq(e->command, "thermal ", strlen("thermal "))))
                return e->command;
        return e->unit;
}

/* `usec` to the sum of (type, owner) among d->sums[0..*n), added at the end if none. */
static void add_binding(struct metrics_device *d, size_t *n, const char *type, const char *owner, uint64_t usec) {
        for (size_t i = 0; i < *n; i++)
                if (streq(d->sums[i].type, type) && streq(d->sums[i].owner, owner)) {
                        d->sums[i].usec += usec;
                        return;
                }
        d->sums[(*n)++] = (struct binding_sum){ .type = type, .owner = owner, .usec = usec };
}

/* Binding time summed by (type, unit) over the live requests, the ended ones remembered and those
 * the daemon no longer remembers one by one (their sums, so that the counter never goes down). */
static void print_binding(FILE *f, const struct metrics *m) {
        family(f, "devfreqd_request_binding_seconds_total", "counter",
               "Time requests decided the device's floor or ceiling, by owner's systemd unit (live "
               "and ended requests).");
        for (size_t i = 0; i < m->n; i++) {
                struct metrics_device *d = &m->v[i];
                size_t n = d->n_forgotten;
                for (size_t k = 0; k < d->n_entries; k++)
                        add_binding(
                                d, &n, d->entries[k].type, owner(&d->entries[k]), d->entries[k].binding_usec);
                for (size_t k = 0; k < n; k++) {
                        uint64_t usec = d->sums[k].usec;
                        fputs("devfreqd_request_binding_seconds_total{", f);
                        label(f, "device", device_name(d), true);
                        label(f, "type", d->sums[k].type, false);
                        label(f, "unit", d->sums[k].owner, false);
                        fprintf(f, "} %" PRIu64 ".%06" PRIu64 "\n", usec / 1000000, usec % 1000000);
                }
        }
}

/* GetForgottenBindingTime into d->sums, with room for the entries after them. */
static int read_forgotten(struct ctl *c, const char *path, struct metrics_device *d, sd_bus_error *error) {
        const char *type, *owner;
        uint64_t usec;
        size_t size = d->n_entries + 1;
        int r;

        r = sd_bus_call_method(
                c->bus, BUS_NAME, path, IFACE_DEVICE, "GetForgottenBindingTime", error, &d->forgotten, NULL);
        if (r >= 0)
                r = sd_bus_message_enter_container(d->forgotten, 'a', "(sst)");
        while (r >= 0 && (r = sd_bus_message_read(d->forgotten, "(sst)", &type, &owner, &usec)) > 0) {
                struct binding_sum *v = reallocarray(d->sums, ++size, sizeof(*v));
                if (!v)
                        return -ENOMEM;
                d->sums = v;
                add_binding(d, &d->n_forgotten, type, owner, usec);
        }
        if (r >= 0 && !d->sums)
                d->sums = calloc(size, sizeof(*d->sums));
        return r < 0 ? r : d->sums ? 0 : -ENOMEM;
}

static int read_states(struct metrics_device *d) {
        const void *freqs, *ms;
        size_t size_f, size_ms;
        int r;

        r = sd_bus_message_read_array(d->stats, 't', &freqs, &size_f);
        if (r >= 0)
                r = sd_bus_message_read_array(d->stats, 't', &ms, &size_ms);
        if (r < 0)
                return r;
        if (size_f != size_ms)
                return -EBADMSG;
        d->freqs = freqs;
        d->time_ms = ms;
        d->n_states = size_f / sizeof(uint64_t);
        return 0;
}

static int collect_device(struct ctl *c, const char *path, struct metrics_device *d) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        if (ctl_get_all(c, NULL, path, IFACE_DEVICE, &d->props) < 0)
                return -EIO; /* said why */
        r = sd_bus_call_method(c->bus, BUS_NAME, path, IFACE_DEVICE, "GetStatistics", &error, &d->stats, NULL);
        if (r >= 0)
                r = read_states(d);
        if (r >= 0)
                r = ctl_get_blame(c, path, &error, &d->blame, &d->entries, &d->n_entries);
        if (r >= 0)
                r = read_forgotten(c, path, d, &error);
        if (r < 0)
                return ctl_bus_error(props_str(&d->props, "Name"), &error, r), -EIO;
        return 0;
}

static int collect(struct ctl *c, struct metrics *m) {
        const struct prop *devices;

        if (ctl_get_all(c, NULL, OBJECT_ROOT, IFACE_MANAGER, &m->manager) < 0)
                return -EIO;
        devices = props_get(&m->manager, "Devices");
        if (!devices)
                return ctl_fail(NULL, "the manager has no Devices property"), -EIO;
        m->v = calloc(devices->n + 1, sizeof(*m->v));
        if (!m->v)
                return ctl_fail(NULL, "out of memory"), -ENOMEM;
        for (size_t i = 0; i < devices->n; i++) {
                int r = collect_device(c, devices->strv[i], &m->v[m->n++]);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int print_all(FILE *f, const struct metrics *m) {
        print_info(f, m);
        print_frequencies(f, m);
        print_transitions(f, m);
        print_time_in_state(f, m);
        print_energy(f, m);
        print_requests(f, m);
        print_binding(f, m);
        return fflush(f) == 0 && !ferror(f) ? 0 : -EIO;
}

/* FILE.XXXXXX beside it, written, synced, made readable to all and renamed over FILE. */
static int write_atomically(const char *file, const struct metrics *m) {
        _cleanup_free_ char *tmp = NULL;
        FILE *f;
        int fd, r;

        if (asprintf(&tmp, "%s.XXXXXX", file) < 0)
                return ctl_fail(NULL, "out of memory");
        fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0)
                return ctl_fail(file, "cannot create a temporary file beside it: %m");
        f = fdopen(fd, "w");
        if (!f) {
                close(fd);
                (void) unlink(tmp);
                return ctl_fail(file, "cannot write: %m");
        }
        r = print_all(f, m);
        if (r >= 0 && (fchmod(fd, 0644) < 0 || fsync(fd) < 0))
                r = -errno;
        if (fclose(f) != 0 && r >= 0)
                r = -errno;
        if (r >= 0 && rename(tmp, file) < 0)
                r = -errno;
        if (r < 0) {
                (void) unlink(tmp);
                errno = -r;
                return ctl_fail(file, "cannot write: %m");
        }
        return EXIT_SUCCESS;
}

int cmd_metrics(struct ctl *c) {
        _cleanup_(metrics_done) struct metrics m = {};

        if (collect(c, &m) < 0)
                return EXIT_DAEMON; /* said why */
        if (c->n_args > 0)
                return write_atomically(c->args[0], &m);
        if (print_all(stdout, &m) < 0)
                return ctl_fail(NULL, "cannot write the metrics: %m");
        return EXIT_SUCCESS;
}
