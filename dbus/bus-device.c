/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The org.devfreqd.Devfreq1.Device objects, served by one fallback vtable and a node enumerator. */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bus-internal.h"
#include "escape.h"
#include "logging.h"
#include "strv.h"

void device_bus_reset(struct manager_device *d) {
        char *path = d->bus.path;

        memset(&d->bus, 0, sizeof(d->bus));
        d->bus.path = path;
}

int device_object_find(
        sd_bus *bus, const char *path, const char *interface, void *userdata, void **found,
        sd_bus_error *error) {
        _cleanup_free_ char *name = NULL;
        struct bus *b = userdata;
        struct manager_device *d;

        if (sd_bus_path_decode(path, DEVICE_PREFIX, &name) <= 0 || !*name)
                return 0;
        d = manager_find_device(b->manager, name);
        if (!d)
                return 0;
        *found = d;
        return 1;
}

int device_node_enumerator(sd_bus *bus, const char *path, void *userdata, char ***nodes, sd_bus_error *error) {
        struct bus *b = userdata;
        char **v = calloc(1, sizeof(char *));
        size_t n = 0;

        for (size_t i = 0; v && i < b->manager->n_devices; i++)
                if (strv_push(&v, &n, b->manager->devices[i]->bus.path) < 0)
                        v = strv_free(v, n);
        if (!v)
                return -ENOMEM;
        *nodes = v;
        return 0;
}

/* The vtable's userdata is the device; the bus context is the manager's listener. */
static struct bus *bus_of(struct manager_device *d) {
        return d->manager->listener_userdata;
}

#define PROPERTY_GETTER(fn)                                                                                  \
        static int fn(                                                                                       \
                sd_bus *bus, const char *path, const char *interface, const char *property,                  \
                sd_bus_message *reply, void *userdata, sd_bus_error *error)

PROPERTY_GETTER(property_get_name) {
        struct manager_device *d = userdata;
        return sd_bus_message_append(reply, "s", d->name);
}

PROPERTY_GETTER(property_get_kind) {
        struct manager_device *d = userdata;
        return sd_bus_message_append(reply, "s", df_kind_to_string(d->node->kind));
}

PROPERTY_GETTER(property_get_sysfs_path) {
        struct manager_device *d = userdata;
        return sd_bus_message_append(reply, "s", d->node->path);
}

PROPERTY_GETTER(property_get_mode) {
        struct manager_device *d = userdata;
        return sd_bus_message_append(reply, "s", df_mode_to_string(d->dev->mode));
}

/* In clamp mode, the kernel's governor as last read (with the device's full publication). */
PROPERTY_GETTER(property_get_governor) {
        struct manager_device *d = userdata;
        return sd_bus_message_append(reply, "s", manager_device_governor(d));
}

PROPERTY_GETTER(property_get_available_governors) {
        struct manager_device *d = userdata;
        char **v = NULL;
        size_t n = 0;
        int r;

        r = manager_device_available_governors(d, &v, &n);
        if (r < 0)
                return r;
        r = sd_bus_message_append_strv(reply, v);
        for (size_t i = 0; i < n; i++)
                free(v[i]);
        free(v);
        return r;
}

PROPERTY_GETTER(property_get_current_frequency) {
        return sd_bus_message_append(reply, "t", manager_device_current_frequency(userdata));
}

PROPERTY_GETTER(property_get_target_frequency) {
        struct manager_device *d = userdata;
        return sd_bus_message_append(reply, "t", d->dev->target);
}

PROPERTY_GETTER(property_get_min_frequency) {
        struct manager_device *d = userdata;
        uint64_t min, max;

        df_device_get_range(d->dev, &min, &max);
        return sd_bus_message_append(reply, "t", streq(property, "MinFrequency") ? min : max);
}

PROPERTY_GETTER(property_get_available_frequencies) {
        struct manager_device *d = userdata;
        const uint64_t *v;
        size_t n;

        df_device_get_usable(d->dev, &v, &n);
        return sd_bus_message_append_array(reply, 't', v, n * sizeof(uint64_t));
}

/* The administrator's flag (DBUS-API.md): a point a thermal cap takes is missing from
 * AvailableFrequencies, not disabled here. */
PROPERTY_GETTER(property_get_operating_points) {
        struct manager_device *d = userdata;
        int r = sd_bus_message_open_container(reply, 'a', "(tuub)");

        for (size_t i = 0; r >= 0 && i < d->dev->opps.n; i++) {
                const struct df_opp *o = &d->dev->opps.opps[i];
                r = sd_bus_message_append(
                        reply, "(tuub)", o->freq, o->microvolt, o->latency_us, (int) !o->disabled);
        }
        if (r < 0)
                return r;
        return sd_bus_message_close_container(reply);
}

/* As last published: in clamp mode the kernel's interval, read with the device's full publication. */
PROPERTY_GETTER(property_get_polling_interval) {
        struct manager_device *d = userdata;
        return sd_bus_message_append(reply, "u", (uint32_t) MIN(d->published.polling, UINT32_MAX));
}

PROPERTY_GETTER(property_get_load) {
        struct manager_device *d = userdata;
        return sd_bus_message_append(reply, "u", df_device_load(d->dev));
}

PROPERTY_GETTER(property_get_qos) {
        struct manager_device *d = userdata;

        if (streq(property, "QosMinFrequency"))
                return sd_bus_message_append(reply, "t", df_qos_read_value(&d->dev->qos, DF_QOS_MIN_FREQUENCY));
        if (streq(property, "QosMaxFrequency"))
                return sd_bus_message_append(reply, "t", df_qos_read_value(&d->dev->qos, DF_QOS_MAX_FREQUENCY));
        return sd_bus_message_append(reply, "u", (uint32_t) df_qos_read_value(&d->dev->qos, DF_QOS_LATENCY));
}

PROPERTY_GETTER(property_get_requests) {
        struct manager_device *d = userdata;
        int r = sd_bus_message_open_container(reply, 'a', "o");

        for (struct request *q = d->bus.requests; r >= 0 && q; q = q->device_next)
                r = sd_bus_message_append(reply, "o", q->path);
        if (r < 0)
                return r;
        return sd_bus_message_close_container(reply);
}

PROPERTY_GETTER(property_get_tunables) {
        struct manager_device *d = userdata;
        const struct df_governor_ops *ops = d->dev->governor.ops;
        int r = sd_bus_message_open_container(reply, 'a', "{su}");

        for (size_t i = 0; r >= 0 && d->dev->mode == DF_MODE_GOVERN && i < ops->n_tunables; i++)
                r = sd_bus_message_append(reply, "{su}", ops->tunables[i].name, d->dev->governor.tunables[i]);
        if (r < 0)
                return r;
        return sd_bus_message_close_container(reply);
}

PROPERTY_GETTER(property_get_transition_count) {
        struct manager_device *d = userdata;
        uint64_t *freqs = NULL, *ms = NULL, *trans = NULL, total = 0;
        size_t n = 0;

        if (d->dev->mode == DF_MODE_GOVERN)
                return sd_bus_message_append(reply, "t", d->dev->stats.total);
        if (manager_device_get_statistics(d, &freqs, &ms, &trans, &n, &total) >= 0) {
                free(freqs);
                free(ms);
                free(trans);
        }
        return sd_bus_message_append(reply, "t", total);
}

PROPERTY_GETTER(property_get_energy) {
        /* In µs: an integer, as the other properties; a double's seconds never go down as µs. */
        return sd_bus_message_append(reply, "t", (uint64_t) (manager_device_energy(userdata) * 1e6));
}

PROPERTY_GETTER(property_get_last_error) {
        struct manager_device *d = userdata;
        return sd_bus_message_append(reply, "s", d->last_error);
}

PROPERTY_GETTER(property_get_thermal_cap) {
        struct manager_device *d = userdata;
        return sd_bus_message_append(reply, "t", d->dev->opps.cap);
}

/* --- methods --------------------------------------------------------------------------- */

static int method_set_governor(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        struct manager_device *d = userdata;
        char e[ECHO_BUFFER], why[256];
        const char *name;
        int r;

        r = sd_bus_message_read(m, "s", &name);
        if (r < 0)
                return r;
        r = bus_check_name_arg("governor", name, error);
        if (r < 0)
                return r;
        if (d->dev->mode == DF_MODE_GOVERN && !df_governor_find(name))
                return sd_bus_error_setf(
                        error, ERROR_INVALID_GOVERNOR, "Unknown governor '%s' (see the Governors property)",
                        bus_echo(name, e));
        r = bus_authorize(bus_of(d), m, ACTION_SET_GOVERNOR, error);
        if (r <= 0)
                return r < 0 ? r : 1;

        bus_batch_begin(bus_of(d));
        r = manager_device_set_governor(d, name);
        bus_batch_commit(bus_of(d)); /* before the reply */
        if (r == -ENOPKG && d->dev->mode == DF_MODE_CLAMP)
                return sd_bus_error_setf(
                        error, ERROR_INVALID_GOVERNOR,
                        "The kernel does not offer governor '%s' for %s (see AvailableGovernors)",
                        bus_echo(name, e), d->node->path);
        if (d->dev->mode == DF_MODE_GOVERN && (r == -ENOMEDIUM || r == -ENOLINK))
                return sd_bus_error_setf(
                        error, ERROR_INVALID_GOVERNOR, "%s",
                        manager_device_governor_refusal(d, df_governor_find(name), r, why, sizeof(why)));
        if (r == -ENOMEM)
                return r;
        /* The device's failure, with the path and the errno text: the kernel's list or the write (clamp),
         * the load source (govern, in LastError). */
        if (r < 0 && d->dev->mode == DF_MODE_CLAMP)
                return sd_bus_error_setf(
                        error, ERROR_DEVICE_FAILED, "%s", d->node->error[0] ? d->node->error : strerror(-r));
        if (r < 0)
                return sd_bus_error_setf(
                        error, ERROR_DEVICE_FAILED, "%s", d->last_error[0] ? d->last_error : strerror(-r));
        return sd_bus_reply_method_return(m, NULL);
}

static int method_set_frequency(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        struct manager_device *d = userdata;
        uint64_t freq;
        int r;

        r = sd_bus_message_read(m, "t", &freq);
        if (r < 0)
                return r;
        r = bus_authorize(bus_of(d), m, ACTION_SET_GOVERNOR, error);
        if (r <= 0)
                return r < 0 ? r : 1;
        bus_batch_begin(bus_of(d));
        r = manager_device_set_frequency(d, freq);
        bus_batch_commit(bus_of(d)); /* before the reply */
        if (r == -EOPNOTSUPP)
                return sd_bus_error_setf(
                        error, ERROR_WRONG_GOVERNOR,
                        d->dev->mode == DF_MODE_CLAMP ?
                                "%s is in clamp mode: the kernel's governor sets its frequency" :
                                "SetFrequency needs the userspace governor on %s",
                        d->name);
        if (r < 0)
                return r;
        return sd_bus_reply_method_return(m, NULL);
}

static int method_set_tunable(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        struct manager_device *d = userdata;
        const struct df_governor_ops *ops = d->dev->governor.ops;
        char e[ECHO_BUFFER];
        const char *name;
        uint32_t value;
        int r, k;

        r = sd_bus_message_read(m, "su", &name, &value);
        if (r < 0)
                return r;
        r = bus_check_name_arg("tunable", name, error);
        if (r < 0)
                return r;
        if (d->dev->mode != DF_MODE_GOVERN)
                return sd_bus_error_setf(
                        error, SD_BUS_ERROR_INVALID_ARGS,
                        "%s is in clamp mode: the kernel's governor has no devfreqd tunables", d->name);
        k = df_governor_tunable_index(ops, name);
        if (k < 0)
                return sd_bus_error_setf(
                        error, SD_BUS_ERROR_INVALID_ARGS, "Governor %s has no tunable '%s'", ops->name,
                        bus_echo(name, e));
        if (value < ops->tunables[k].min || value > ops->tunables[k].max)
                return sd_bus_error_setf(
                        error, SD_BUS_ERROR_INVALID_ARGS, "%s=%" PRIu32 " is outside %" PRIu32 "-%" PRIu32,
                        bus_echo(name, e), value, ops->tunables[k].min, ops->tunables[k].max);
        r = bus_authorize(bus_of(d), m, ACTION_SET_GOVERNOR, error);
        if (r <= 0)
                return r < 0 ? r : 1;
        bus_batch_begin(bus_of(d));
        r = manager_device_set_tunable(d, name, value);
        bus_batch_commit(bus_of(d)); /* before the reply */
        if (r == -ERANGE)
                return sd_bus_error_setf(
                        error, SD_BUS_ERROR_INVALID_ARGS,
                        "%s=%" PRIu32 " does not fit with the other tunables of %s", name, value, ops->name);
        if (r < 0)
                return r;
        return sd_bus_reply_method_return(m, NULL);
}

static int method_set_operating_point(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        struct manager_device *d = userdata;
        uint64_t freq;
        int enabled, r;

        r = sd_bus_message_read(m, "tb", &freq, &enabled);
        if (r < 0)
                return r;
        if (df_opp_find(&d->dev->opps, freq) < 0)
                return sd_bus_error_setf(
                        error, ERROR_NO_SUCH_OPERATING_POINT,
                        "%s has no operating point of %" PRIu64 " Hz (see OperatingPoints)", d->name, freq);
        r = bus_authorize(bus_of(d), m, ACTION_CONFIGURE, error);
        if (r <= 0)
                return r < 0 ? r : 1;
        bus_batch_begin(bus_of(d));
        r = manager_device_set_operating_point(d, freq, enabled);
        bus_batch_commit(bus_of(d)); /* before the reply */
        if (r == -EBUSY)
                return sd_bus_error_setf(
                        error, SD_BUS_ERROR_INVALID_ARGS, "%" PRIu64 " Hz is the last enabled point of %s",
                        freq, d->name);
        if (r < 0)
                return r;
        return sd_bus_reply_method_return(m, NULL);
}

/* reason or application-id: a string, short, with no control character. */
static int read_string_option(
        sd_bus_message *m, const char *key, const char *contents, const char **dst, sd_bus_error *error) {
        char e[ECHO_BUFFER];
        int r;

        if (!streq(contents, "s"))
                return sd_bus_error_setf(
                        error, SD_BUS_ERROR_INVALID_ARGS, "Option '%s' takes a string (s), not '%s'", key,
                        bus_echo(contents, e));
        r = sd_bus_message_read(m, "v", "s", dst);
        if (r < 0)
                return r;
        if (strlen(*dst) > REQUEST_STRING_MAX)
                return sd_bus_error_setf(
                        error, SD_BUS_ERROR_INVALID_ARGS, "Option '%s' is longer than %d bytes", key,
                        REQUEST_STRING_MAX);
        /* It reaches the log and other clients' screens as it is. */
        if (df_has_control(*dst))
                return sd_bus_error_setf(
                        error, SD_BUS_ERROR_INVALID_ARGS,
                        "Option '%s' holds a control character (a newline, a tab, an escape…)", key);
        return 0;
}

/* timeout-ms: u or t, at least 1. */
static int read_timeout_option(sd_bus_message *m, const char *contents, uint64_t *timeout_ms, sd_bus_error *error) {
        char e[ECHO_BUFFER];
        int r;

        if (streq(contents, "u")) {
                uint32_t v;
                r = sd_bus_message_read(m, "v", "u", &v);
                *timeout_ms = v;
        } else if (streq(contents, "t"))
                r = sd_bus_message_read(m, "v", "t", timeout_ms);
        else
                return sd_bus_error_setf(
                        error, SD_BUS_ERROR_INVALID_ARGS, "Option 'timeout-ms' takes u or t, not '%s'",
                        bus_echo(contents, e));
        if (r < 0)
                return r;
        if (*timeout_ms == 0)
                return sd_bus_error_setf(
                        error, SD_BUS_ERROR_INVALID_ARGS, "Option 'timeout-ms' must be at least 1");
        return 0;
}

static int read_options(
        sd_bus_message *m, const char **reason, const char **app, uint64_t *timeout_ms, sd_bus_error *error) {
        static const char *const keys[] = { "reason", "application-id", "timeout-ms" };
        unsigned seen = 0;
        char e[ECHO_BUFFER];
        int r;

        r = sd_bus_message_enter_container(m, 'a', "{sv}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
                const char *key, *contents;
                char type;

                r = sd_bus_message_read(m, "s", &key);
                if (r < 0)
                        return r;
                r = bus_check_name_arg("option", key, error);
                if (r < 0)
                        return r;
                /* Each option once: a repeated one would be a large message kept for nothing
                 * while polkit decides. */
                for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
                        if (!streq(key, keys[i]))
                                continue;
                        if (seen & (1u << i))
                                return sd_bus_error_setf(
                                        error, SD_BUS_ERROR_INVALID_ARGS,
                                        "Option '%s' is given more than once", key);
                        seen |= 1u << i;
                }
                r = sd_bus_message_peek_type(m, &type, &contents);
                if (r < 0)
                        return r;
                if (streq(key, "reason") || streq(key, "application-id"))
                        r = read_string_option(m, key, contents, streq(key, "reason") ? reason : app, error);
                else if (streq(key, "timeout-ms"))
                        r = read_timeout_option(m, contents, timeout_ms, error);
                else
                        return sd_bus_error_setf(
                                error, SD_BUS_ERROR_INVALID_ARGS,
                                "Unknown option '%s' (reason, application-id, timeout-ms)", bus_echo(key, e));
                if (r < 0)
                        return r;
                r = sd_bus_message_exit_container(m);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(m);
}

static int method_add_request(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        struct manager_device *d = userdata;
        const char *type_name, *reason = "", *app = "";
        char e[ECHO_BUFFER];
        uint64_t value, timeout_ms = 0;
        enum df_qos_type type;
        struct request *q;
        int r;

        r = sd_bus_message_read(m, "st", &type_name, &value);
        if (r < 0)
                return r;
        r = bus_check_name_arg("request type", type_name, error);
        if (r < 0)
                return r;
        r = read_options(m, &reason, &app, &timeout_ms, error);
        if (r < 0)
                return r;
        type = df_qos_type_from_string(type_name);
        if (type < 0)
                return sd_bus_error_setf(
                        error, SD_BUS_ERROR_INVALID_ARGS,
                        "Unknown request type '%s' (min-frequency, max-frequency, latency)",
                        bus_echo(type_name, e));
        r = request_validate_value(d, type, value, error);
        if (r < 0)
                return r;
        r = bus_authorize(bus_of(d), m, ACTION_REQUEST, error);
        if (r <= 0)
                return r < 0 ? r : 1;

        /* Decide and write, reply, then announce (bus_batch_begin() says why). */
        bus_batch_begin(bus_of(d));
        r = request_add(bus_of(d), m, d, type, value, reason, app, timeout_ms, error, &q);
        if (r >= 0) {
                r = sd_bus_reply_method_return(m, "o", q->path);
                request_announce(q);
                /* A caller that never got the path could not remove the request: it goes now. */
                if (r < 0) {
                        log_warning_errno(
                                r, "%s: cannot reply to AddRequest, removing its request: %m", d->name);
                        request_drop(q, true);
                }
        }
        bus_batch_commit(bus_of(d));
        return r;
}

static int method_get_statistics(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_free_ uint64_t *freqs = NULL, *ms = NULL, *trans = NULL;
        struct manager_device *d = userdata;
        uint64_t total = 0;
        size_t n = 0;
        int r;

        r = manager_device_get_statistics(d, &freqs, &ms, &trans, &n, &total);
        if (r == -ENODATA)
                n = 0; /* the kernel keeps none for this policy: empty tables */
        else if (r < 0)
                return sd_bus_error_setf(
                        error, ERROR_DEVICE_FAILED, "Reading the statistics of %s failed: %s", d->node->path,
                        strerror(-r));
        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_append_array(reply, 't', freqs, n * sizeof(uint64_t));
        if (r < 0)
                return r;
        r = sd_bus_message_append_array(reply, 't', ms, n * sizeof(uint64_t));
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "at");
        for (size_t i = 0; r >= 0 && i < n; i++)
                r = sd_bus_message_append_array(reply, 't', trans + i * n, n * sizeof(uint64_t));
        if (r < 0)
                return r;
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        r = sd_bus_message_append(reply, "t", total);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int method_reset_statistics(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        struct manager_device *d = userdata;
        int r;

        r = bus_authorize(bus_of(d), m, ACTION_CONFIGURE, error);
        if (r <= 0)
                return r < 0 ? r : 1;
        bus_batch_begin(bus_of(d));
        r = manager_device_reset_statistics(d);
        bus_batch_commit(bus_of(d)); /* before the reply */
        if (r < 0)
                return sd_bus_error_setf(
                        error, ERROR_DEVICE_FAILED, "Resetting the statistics of %s failed: %s",
                        d->node->path, d->node->error[0] ? d->node->error : strerror(-r));
        return sd_bus_reply_method_return(m, NULL);
}

const sd_bus_vtable device_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Name", "s", property_get_name, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Kind", "s", property_get_kind, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("SysfsPath", "s", property_get_sysfs_path, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Mode", "s", property_get_mode, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Governor", "s", property_get_governor, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY(
                "AvailableGovernors", "as", property_get_available_governors, 0,
                SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY(
                "CurrentFrequency", "t", property_get_current_frequency, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("TargetFrequency", "t", property_get_target_frequency, 0, 0),
        SD_BUS_PROPERTY("MinFrequency", "t", property_get_min_frequency, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("MaxFrequency", "t", property_get_min_frequency, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY(
                "AvailableFrequencies", "at", property_get_available_frequencies, 0,
                SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY(
                "OperatingPoints", "a(tuub)", property_get_operating_points, 0,
                SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY(
                "PollingInterval", "u", property_get_polling_interval, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Load", "u", property_get_load, 0, 0),
        SD_BUS_PROPERTY("QosMinFrequency", "t", property_get_qos, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("QosMaxFrequency", "t", property_get_qos, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("QosLatency", "u", property_get_qos, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Requests", "ao", property_get_requests, 0, SD_BUS_VTABLE_PROPERTY_EMITS_INVALIDATION),
        SD_BUS_PROPERTY("Tunables", "a{su}", property_get_tunables, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("TransitionCount", "t", property_get_transition_count, 0, 0),
        SD_BUS_PROPERTY("LastError", "s", property_get_last_error, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("ThermalCap", "t", property_get_thermal_cap, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Energy", "t", property_get_energy, 0, 0),
        SD_BUS_METHOD_WITH_ARGS(
                "SetGovernor", SD_BUS_ARGS("s", governor), SD_BUS_NO_RESULT, method_set_governor,
                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS(
                "SetFrequency", SD_BUS_ARGS("t", frequency), SD_BUS_NO_RESULT, method_set_frequency,
                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS(
                "SetTunable", SD_BUS_ARGS("s", name, "u", value), SD_BUS_NO_RESULT, method_set_tunable,
                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS(
                "SetOperatingPoint", SD_BUS_ARGS("t", frequency, "b", enabled), SD_BUS_NO_RESULT,
                method_set_operating_point, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS(
                "AddRequest", SD_BUS_ARGS("s", type, "t", value, "a{sv}", options),
                SD_BUS_RESULT("o", request), method_add_request, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS(
                "GetStatistics", SD_BUS_NO_ARGS,
                SD_BUS_RESULT(
                        "at", frequencies, "at", time_in_state_ms, "aat", transitions, "t", total_transitions),
                method_get_statistics, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS(
                "GetBlame", SD_BUS_NO_ARGS, SD_BUS_RESULT("a(tsussstt)", entries), method_get_blame,
                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS(
                "GetForgottenBindingTime", SD_BUS_NO_ARGS, SD_BUS_RESULT("a(sst)", totals),
                method_get_forgotten_binding_time, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS(
                "ResetStatistics", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_reset_statistics,
                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};
