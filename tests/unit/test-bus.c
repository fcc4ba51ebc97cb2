/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The bus objects without a broker: the daemon's objects served on one end of a socketpair, a
 * client on the other, one event loop for both; marshalling, validation and error names. */

#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>
#include <systemd/sd-id128.h>
#include <time.h>
#include <unistd.h>

#include "bus.h"
#include "logging.h"
#include "macro.h"
#include "manager.h"
#include "test-helpers.h"

#define MHZ UINT64_C(1000000)
#define ROOT_PATH "/org/devfreqd/Devfreq1"
#define GPU_PATH ROOT_PATH "/device/gpu"
#define DMC_PATH ROOT_PATH "/device/dmc"
#define CPU_PATH ROOT_PATH "/device/cpu0"
#define MANAGER "org.devfreqd.Devfreq1.Manager"
#define DEVICE "org.devfreqd.Devfreq1.Device"
#define REQUEST "org.devfreqd.Devfreq1.Request"
#define PROPERTIES "org.freedesktop.DBus.Properties"
#define ERR(name) "org.devfreqd.Devfreq1.Error." name
#define INVALID_ARGS "org.freedesktop.DBus.Error.InvalidArgs"
#define GPU_NODE "sys/devices/platform/ff9a0000.gpu/devfreq/ff9a0000.gpu"
#define CONFIG_FILE "devfreqd.conf" /* in t.tmp */

/* gpu: govern, userspace, latencies configured; dmc: govern, simple_ondemand (polling, but the
 * first sample is an hour away, so nothing moves); cpu0: clamp. Sections out of name order. */
static const char config_text[] = "[daemon]\n"
                                  "autodiscover = no\n"
                                  "max-requests-per-client = 4\n"
                                  "%s"
                                  "\n"
                                  "[device gpu]\n"
                                  "path = /sys/class/devfreq/ff9a0000.gpu\n"
                                  "mode = govern\n"
                                  "governor = userspace\n"
                                  "opp = 200MHz 825mV latency=2ms\n"
                                  "opp = 400MHz 900mV latency=1ms\n"
                                  "opp = 800MHz 1050mV latency=200us\n"
                                  "\n"
                                  "[device dmc]\n"
                                  "path = /sys/class/devfreq/dmc\n"
                                  "mode = govern\n"
                                  "governor = simple_ondemand\n"
                                  "load = percent:/sys/devices/platform/dmc/load\n"
                                  "polling-interval = 3600s\n"
                                  "\n"
                                  "[device cpu0]\n"
                                  "path = /sys/devices/system/cpu/cpufreq/policy0\n"
                                  "mode = clamp\n";

static struct {
        char *tmp;
        char *config;
        sd_event *event;
        struct manager *manager;
        struct bus *bus;
        sd_bus *server;
        sd_bus *client;
} t;

/* --- setup: a fake root, a configuration, the manager, and the two ends of a socketpair ------ */

static void write_config(const char *extra) {
        _cleanup_free_ char *text = NULL;

        ck_assert_int_ge(asprintf(&text, config_text, extra), 0);
        df_test_put(t.tmp, CONFIG_FILE, text);
}

static void make_root(const char *root) {
        const char *top = getenv("top_srcdir");
        _cleanup_free_ char *cmd = NULL;

        if (!top || !*top)
                top = TOP_SRCDIR;
        /* devfreq makes userspace/set_freq when its governor becomes userspace; the fake kernel is
         * not preloaded here, so the file is made up front. */
        ck_assert_int_ge(
                asprintf(
                        &cmd,
                        "'%s/tests/fixtures/mkroot' '%s' && mkdir '%s/" GPU_NODE "/userspace' && "
                        "echo 0 >'%s/" GPU_NODE "/userspace/set_freq'",
                        top, root, root, root),
                0);
        ck_assert_int_eq(system(cmd), 0);
}

static void setup(void) {
        _cleanup_free_ char *root = NULL, *run = NULL, *state = NULL, *groups = NULL;
        struct group *g = getgrgid(getgid());
        struct manager_options o = {};
        sd_id128_t id;
        int fds[2];

        log_set_max_level(LOG_WARNING);
        t.tmp = df_test_root_new("bus");
        root = df_test_path(t.tmp, "root");
        run = df_test_path(t.tmp, "run");
        state = df_test_path(t.tmp, "state");
        t.config = df_test_path(t.tmp, CONFIG_FILE);
        make_root(root);
        /* As root every call is authorized; as anyone else, through the caller's own group. */
        if (g)
                ck_assert_int_ge(asprintf(&groups, "allow-groups = %s\n", g->gr_name), 0);
        write_config(strempty(groups));

        ck_assert_int_ge(sd_event_new(&t.event), 0);
        o.config_file = t.config;
        o.root = root;
        o.runtime_dir = run;
        o.state_dir = state;
        ck_assert_int_eq(mkdir(run, 0755), 0);
        ck_assert_int_eq(mkdir(state, 0755), 0);
        ck_assert_int_ge(manager_new(t.event, &o, &t.manager), 0);
        ck_assert_int_ge(manager_start(t.manager), 0);

        ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, fds), 0);
        ck_assert_int_ge(sd_id128_randomize(&id), 0);
        ck_assert_int_ge(sd_bus_new(&t.server), 0);
        ck_assert_int_ge(sd_bus_set_fd(t.server, fds[0], fds[0]), 0);
        ck_assert_int_ge(sd_bus_set_server(t.server, 1, id), 0);
        ck_assert_int_ge(sd_bus_start(t.server), 0);
        ck_assert_int_ge(bus_new_with_connection(t.event, t.manager, t.server, &t.bus), 0);

        ck_assert_int_ge(sd_bus_new(&t.client), 0);
        ck_assert_int_ge(sd_bus_set_fd(t.client, fds[1], fds[1]), 0);
        ck_assert_int_ge(sd_bus_start(t.client), 0);
        ck_assert_int_ge(sd_bus_attach_event(t.client, t.event, SD_EVENT_PRIORITY_NORMAL), 0);
}

static void teardown(void) {
        t.client = sd_bus_flush_close_unref(t.client);
        t.bus = bus_free(t.bus);
        t.server = sd_bus_unref(t.server);
        t.manager = manager_free(t.manager);
        t.event = sd_event_unref(t.event);
        if (t.tmp)
                df_test_rm_rf(t.tmp);
        free(t.tmp);
        free(t.config);
        memset(&t, 0, sizeof(t));
}

/* --- calls: sent asynchronously, the one loop runs both ends until the reply is in ------------- */

struct pending {
        bool done;
        sd_bus_message *reply;
};

static int on_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        struct pending *p = userdata;

        p->reply = sd_bus_message_ref(m);
        p->done = true;
        return 0;
}

/* Run the loop until `done` or for at most `usec`. */
static void run_until(const bool *done, uint64_t usec) {
        struct timespec ts;
        uint64_t deadline;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        deadline = (uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u + usec;
        while (!*done) {
                clock_gettime(CLOCK_MONOTONIC, &ts);
                if ((uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u >= deadline)
                        return;
                ck_assert_int_ge(sd_event_run(t.event, 10000), 0);
        }
}

static sd_bus_message *send_call(sd_bus_message *m) {
        struct pending p = {};

        ck_assert_int_ge(sd_bus_call_async(t.client, NULL, m, on_reply, &p, 5000000), 0);
        run_until(&p.done, 10000000);
        ck_assert_msg(p.done, "no reply to %s", sd_bus_message_get_member(m));
        return p.reply;
}

static sd_bus_message *
callv(const char *path, const char *iface, const char *member, const char *types, va_list ap) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;

        ck_assert_int_ge(sd_bus_message_new_method_call(t.client, &m, NULL, path, iface, member), 0);
        if (types)
                ck_assert_int_ge(sd_bus_message_appendv(m, types, ap), 0);
        return send_call(m);
}

/* A successful call's reply, for the caller to read and unref. */
static sd_bus_message *call_ok(const char *path, const char *iface, const char *member, const char *types, ...) {
        sd_bus_message *reply;
        const sd_bus_error *e;
        va_list ap;

        va_start(ap, types);
        reply = callv(path, iface, member, types, ap);
        va_end(ap);
        e = sd_bus_message_get_error(reply);
        ck_assert_msg(
                !e, "%s.%s on %s failed: %s: %s", iface, member, path, e ? e->name : "", e ? e->message : "");
        return reply;
}

/* A call that must fail with `error`; returns the message, for the caller to free. */
static char *
call_error(const char *error, const char *path, const char *iface, const char *member, const char *types, ...) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const sd_bus_error *e;
        va_list ap;
        char *message;

        va_start(ap, types);
        reply = callv(path, iface, member, types, ap);
        va_end(ap);
        e = sd_bus_message_get_error(reply);
        ck_assert_msg(e, "%s.%s on %s succeeded, expected %s", iface, member, path, error);
        ck_assert_msg(
                streq(e->name, error), "%s.%s on %s: expected %s, got %s: %s", iface, member, path, error,
                e->name, e->message);
        message = strdup(strempty(e->message));
        ck_assert_ptr_nonnull(message);
        return message;
}

#define expect_error(...) free(call_error(__VA_ARGS__))
#define expect_ok(...) sd_bus_message_unref(call_ok(__VA_ARGS__))

/* --- properties ---------------------------------------------------------------------------------- */

static sd_bus_message *get_property(const char *path, const char *iface, const char *name, const char *type) {
        sd_bus_message *reply = call_ok(path, PROPERTIES, "Get", "ss", iface, name);

        ck_assert_int_ge(sd_bus_message_enter_container(reply, 'v', type), 0);
        return reply;
}

static uint64_t get_u64(const char *path, const char *iface, const char *name) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = get_property(path, iface, name, "t");
        uint64_t v;

        ck_assert_int_ge(sd_bus_message_read(reply, "t", &v), 0);
        return v;
}

static uint32_t get_u32(const char *path, const char *iface, const char *name) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = get_property(path, iface, name, "u");
        uint32_t v;

        ck_assert_int_ge(sd_bus_message_read(reply, "u", &v), 0);
        return v;
}

static char *get_string(const char *path, const char *iface, const char *name, const char *type) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = get_property(path, iface, name, type);
        const char *s;
        char *copy;

        ck_assert_int_ge(sd_bus_message_read_basic(reply, type[0], &s), 0);
        copy = strdup(s);
        ck_assert_ptr_nonnull(copy);
        return copy;
}

/* The object paths in an "ao" property, joined by spaces. */
static char *get_paths(const char *path, const char *iface, const char *name) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = get_property(path, iface, name, "ao");
        char *out = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&out, &size);
        const char *p, *separator = "";
        int r;

        ck_assert_ptr_nonnull(f);
        ck_assert_int_ge(sd_bus_message_enter_container(reply, 'a', "o"), 0);
        while ((r = sd_bus_message_read(reply, "o", &p)) > 0) {
                fprintf(f, "%s%s", separator, p);
                separator = " ";
        }
        ck_assert_int_ge(r, 0);
        fclose(f);
        return out;
}

/* Every property of every object, as text: what "nothing changed" compares. */
static char *snapshot(void) {
        static const struct {
                const char *path, *iface;
        } objects[] = {
                { ROOT_PATH, MANAGER },
                { GPU_PATH, DEVICE },
                { DMC_PATH, DEVICE },
                { CPU_PATH, DEVICE },
        };
        char *out = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&out, &size);

        ck_assert_ptr_nonnull(f);
        for (size_t i = 0; i < ELEMENTSOF(objects); i++) {
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = call_ok(
                        objects[i].path, PROPERTIES, "GetAll", "s", objects[i].iface);
                fprintf(f, "%s\n", objects[i].path);
                ck_assert_int_ge(sd_bus_message_dump(reply, f, 0), 0);
        }
        fclose(f);
        /* Energy grows while a device runs: its value is no part of what a call may not change. */
        for (char *p = out; (p = strstr(p, "STRING \"Energy\";")) && (p = strstr(p, "UINT64 "));) {
                size_t digits;

                p += strlen("UINT64 ");
                digits = strspn(p, "0123456789");
                if (digits == 0)
                        continue;
                *p = '*';
                memmove(p + 1, p + digits, strlen(p + digits) + 1);
        }
        return out;
}

/* The first line where two snapshots differ, and its number (a whole snapshot is too long for a
 * message of check's). */
static void first_difference(const char *a, const char *b, char *buf, size_t size) {
        unsigned line = 1;
        const char *la = a, *lb = b;

        for (; *a && *a == *b; a++, b++)
                if (*a == '\n') {
                        line++;
                        la = a + 1;
                        lb = b + 1;
                }
        snprintf(
                buf, size, "line %u: '%.*s' was '%.*s'", line, (int) strcspn(la, "\n"), la,
                (int) strcspn(lb, "\n"), lb);
}

#define assert_unchanged(before)                                                                             \
        do {                                                                                                 \
                _cleanup_free_ char *_after = snapshot();                                                    \
                char _diff[512] = "";                                                                        \
                if (!streq(_after, (before)))                                                                \
                        first_difference(_after, (before), _diff, sizeof(_diff));                            \
                ck_assert_msg(streq(_after, (before)), "state changed: %s", _diff);                          \
        } while (0)

static void assert_no_qos(const char *path) {
        _cleanup_free_ char *requests = get_paths(path, DEVICE, "Requests");

        ck_assert_uint_eq(get_u64(path, DEVICE, "QosMinFrequency"), 0);
        ck_assert_uint_eq(get_u64(path, DEVICE, "QosMaxFrequency"), UINT64_MAX);
        ck_assert_uint_eq(get_u32(path, DEVICE, "QosLatency"), UINT32_MAX);
        ck_assert_str_eq(requests, "");
}

static char *add_request(const char *device, const char *type, uint64_t value) {
        _cleanup_(sd_bus_message_unrefp)
                sd_bus_message *reply = call_ok(device, DEVICE, "AddRequest", "sta{sv}", type, value, 0);
        const char *path;
        char *copy;

        ck_assert_int_ge(sd_bus_message_read(reply, "o", &path), 0);
        copy = strdup(path);
        ck_assert_ptr_nonnull(copy);
        return copy;
}

/* --- the manager ----------------------------------------------------------------------------------- */

START_TEST(test_list_devices_sorted) {
        _cleanup_(sd_bus_message_unrefp)
                sd_bus_message *reply = call_ok(ROOT_PATH, MANAGER, "ListDevices", NULL);
        _cleanup_free_ char *devices = get_paths(ROOT_PATH, MANAGER, "Devices");
        static const char *const expected[][2] = {
                { "cpu0", CPU_PATH },
                { "dmc", DMC_PATH },
                { "gpu", GPU_PATH },
        };
        const char *name, *path;
        size_t n = 0;
        int r;

        ck_assert_str_eq(sd_bus_message_get_signature(reply, true), "a(so)");
        ck_assert_int_ge(sd_bus_message_enter_container(reply, 'a', "(so)"), 0);
        while ((r = sd_bus_message_read(reply, "(so)", &name, &path)) > 0) {
                ck_assert_uint_lt(n, ELEMENTSOF(expected));
                ck_assert_str_eq(name, expected[n][0]);
                ck_assert_str_eq(path, expected[n][1]);
                n++;
        }
        ck_assert_int_ge(r, 0);
        ck_assert_uint_eq(n, ELEMENTSOF(expected));
        ck_assert_str_eq(devices, CPU_PATH " " DMC_PATH " " GPU_PATH);
}
END_TEST

START_TEST(test_get_device) {
        _cleanup_(sd_bus_message_unrefp)
                sd_bus_message *reply = call_ok(ROOT_PATH, MANAGER, "GetDevice", "s", "gpu");
        _cleanup_free_ char *message = NULL;
        const char *path;

        ck_assert_int_ge(sd_bus_message_read(reply, "o", &path), 0);
        ck_assert_str_eq(path, GPU_PATH);
        message = call_error(ERR("NoSuchDevice"), ROOT_PATH, MANAGER, "GetDevice", "s", "npu");
        ck_assert_ptr_nonnull(strstr(message, "'npu'"));
        expect_error(ERR("NoSuchDevice"), ROOT_PATH, MANAGER, "GetDevice", "s", "");
}
END_TEST

START_TEST(test_manager_signatures) {
        expect_error(INVALID_ARGS, ROOT_PATH, MANAGER, "GetDevice", "u", 7);
        expect_error(INVALID_ARGS, ROOT_PATH, MANAGER, "GetDevice", NULL);
        expect_error(INVALID_ARGS, ROOT_PATH, MANAGER, "GetDevice", "ss", "gpu", "dmc");
        expect_error(INVALID_ARGS, ROOT_PATH, MANAGER, "ListDevices", "s", "gpu");
        expect_error(INVALID_ARGS, ROOT_PATH, MANAGER, "Reload", "b", 1);
        expect_error("org.freedesktop.DBus.Error.UnknownMethod", ROOT_PATH, MANAGER, "Frobnicate", NULL);
}
END_TEST

START_TEST(test_manager_properties) {
        _cleanup_free_ char *version = get_string(ROOT_PATH, MANAGER, "Version", "s");
        _cleanup_(sd_bus_message_unrefp)
                sd_bus_message *reply = get_property(ROOT_PATH, MANAGER, "Governors", "as");
        const char *name, *previous = "";
        size_t n = 0;
        int r, dry_run;

        ck_assert_str_eq(version, PACKAGE_VERSION);
        ck_assert_int_ge(sd_bus_message_enter_container(reply, 'a', "s"), 0);
        while ((r = sd_bus_message_read(reply, "s", &name)) > 0) {
                ck_assert_int_lt(strcmp(previous, name), 0); /* sorted */
                previous = name;
                n++;
        }
        ck_assert_int_ge(r, 0);
        ck_assert_uint_eq(n, 8);
        sd_bus_message_unref(reply);
        reply = get_property(ROOT_PATH, MANAGER, "DryRun", "b");
        ck_assert_int_ge(sd_bus_message_read(reply, "b", &dry_run), 0);
        ck_assert_int_eq(dry_run, 0);
}
END_TEST

START_TEST(test_reload_invalid_keeps_old) {
        _cleanup_free_ char *before = snapshot(), *message = NULL;

        df_test_put(t.tmp, CONFIG_FILE, "[daemon]\nautodiscover = maybe\n");
        message = call_error(ERR("InvalidConfiguration"), ROOT_PATH, MANAGER, "Reload", NULL);
        ck_assert_msg(strstr(message, "devfreqd.conf:2:"), "message: %s", message);
        assert_unchanged(before);
}
END_TEST

START_TEST(test_unknown_objects) {
        expect_error(
                "org.freedesktop.DBus.Error.UnknownObject", ROOT_PATH "/device/npu", PROPERTIES, "GetAll",
                "s", DEVICE);
        /* A well-formed request path that names no live request: the contract's NoSuchRequest. */
        expect_error(
                "org.devfreqd.Devfreq1.Error.NoSuchRequest", ROOT_PATH "/request/12345", REQUEST, "Remove",
                NULL);
        expect_error(
                "org.freedesktop.DBus.Error.UnknownObject", ROOT_PATH "/request/x", PROPERTIES, "GetAll", "s",
                REQUEST);
        expect_error(
                "org.freedesktop.DBus.Error.UnknownProperty", GPU_PATH, PROPERTIES, "Get", "ss", DEVICE,
                "Turbo");
}
END_TEST

START_TEST(test_log_control) {
        _cleanup_free_ char *level = get_string(
                "/org/freedesktop/LogControl1", "org.freedesktop.LogControl1", "LogLevel", "s");

        ck_assert_str_eq(level, "warning");
        expect_error(
                INVALID_ARGS, "/org/freedesktop/LogControl1", PROPERTIES, "Set", "ssv",
                "org.freedesktop.LogControl1", "LogLevel", "s", "loud");
        expect_error(
                INVALID_ARGS, "/org/freedesktop/LogControl1", PROPERTIES, "Set", "ssv",
                "org.freedesktop.LogControl1", "LogTarget", "s", "printer");
}
END_TEST

/* --- AddRequest: every refusal is InvalidArgs and leaves everything as it was --------------------- */

START_TEST(test_add_request_invalid) {
        _cleanup_free_ char *before = snapshot();
        char reason[258];

        memset(reason, 'r', 257);
        reason[257] = '\0';
        expect_error(INVALID_ARGS, GPU_PATH, DEVICE, "AddRequest", "sta{sv}", "turbo", 0, 0);
        expect_error(INVALID_ARGS, GPU_PATH, DEVICE, "AddRequest", "sta{sv}", "", 0, 0);
        expect_error(
                INVALID_ARGS, GPU_PATH, DEVICE, "AddRequest", "sta{sv}", "min-frequency", 400 * MHZ, 1,
                "colour", "s", "red");
        expect_error(
                INVALID_ARGS, GPU_PATH, DEVICE, "AddRequest", "sta{sv}", "min-frequency", 400 * MHZ, 1,
                "reason", "u", 5);
        expect_error(
                INVALID_ARGS, GPU_PATH, DEVICE, "AddRequest", "sta{sv}", "min-frequency", 400 * MHZ, 1,
                "application-id", "o", "/x");
        expect_error(
                INVALID_ARGS, GPU_PATH, DEVICE, "AddRequest", "sta{sv}", "min-frequency", 400 * MHZ, 1,
                "timeout-ms", "s", "100");
        expect_error(
                INVALID_ARGS, GPU_PATH, DEVICE, "AddRequest", "sta{sv}", "min-frequency", 400 * MHZ, 1,
                "timeout-ms", "i", 100);
        expect_error(
                INVALID_ARGS, GPU_PATH, DEVICE, "AddRequest", "sta{sv}", "min-frequency", 400 * MHZ, 1,
                "reason", "s", reason);
        expect_error(
                INVALID_ARGS, GPU_PATH, DEVICE, "AddRequest", "sta{sv}", "min-frequency", 400 * MHZ, 1,
                "application-id", "s", reason);
        expect_error(INVALID_ARGS, GPU_PATH, DEVICE, "AddRequest", "sta{sv}", "max-frequency", UINT64_C(0), 0);
        expect_error(
                INVALID_ARGS, GPU_PATH, DEVICE, "AddRequest", "sta{sv}", "latency", (uint64_t) UINT32_MAX + 1,
                0);
        expect_error(INVALID_ARGS, GPU_PATH, DEVICE, "AddRequest", "sta{sv}", "latency", UINT64_MAX, 0);
        expect_error(INVALID_ARGS, DMC_PATH, DEVICE, "AddRequest", "sta{sv}", "latency", UINT64_C(100), 0);
        expect_error(INVALID_ARGS, CPU_PATH, DEVICE, "AddRequest", "sta{sv}", "latency", UINT64_C(0), 0);
        expect_error(
                INVALID_ARGS, GPU_PATH, DEVICE, "AddRequest", "sta{sv}", "min-frequency", 400 * MHZ, 1,
                "timeout-ms", "u", 0);
        expect_error(
                INVALID_ARGS, GPU_PATH, DEVICE, "AddRequest", "sta{sv}", "min-frequency", 400 * MHZ, 1,
                "timeout-ms", "t", UINT64_C(0));
        expect_error(
                INVALID_ARGS, GPU_PATH, DEVICE, "AddRequest", "sta{sv}", "min-frequency", 400 * MHZ, 1,
                "timeout-ms", "t", UINT64_MAX);
        /* A good option after a bad one changes nothing either. */
        expect_error(
                INVALID_ARGS, GPU_PATH, DEVICE, "AddRequest", "sta{sv}", "min-frequency", 400 * MHZ, 2,
                "reason", "s", "ok", "colour", "s", "red");
        assert_unchanged(before);
        assert_no_qos(GPU_PATH);
        assert_no_qos(DMC_PATH);
        assert_no_qos(CPU_PATH);
}
END_TEST

START_TEST(test_add_request_edges) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_free_ char *path = NULL, *reason = NULL, *no_ceiling = NULL, *floor = NULL;
        char text[257];
        const char *p;

        /* 256 bytes is the most a string option may hold. */
        memset(text, 'r', 256);
        text[256] = '\0';
        reply = call_ok(
                GPU_PATH, DEVICE, "AddRequest", "sta{sv}", "min-frequency", UINT64_C(0), 2, "reason", "s",
                text, "application-id", "s", text);
        ck_assert_int_ge(sd_bus_message_read(reply, "o", &p), 0);
        path = strdup(p);
        reason = get_string(path, REQUEST, "Reason", "s");
        ck_assert_str_eq(reason, text);
        ck_assert_uint_eq(get_u64(path, REQUEST, "ExpiresUsec"), 0);
        expect_ok(path, REQUEST, "Remove", NULL);

        /* The largest value is "no ceiling"; a floor above the table is "the highest". */
        no_ceiling = add_request(GPU_PATH, "max-frequency", UINT64_MAX);
        ck_assert_uint_eq(get_u64(GPU_PATH, DEVICE, "MaxFrequency"), 800 * MHZ);
        floor = add_request(GPU_PATH, "min-frequency", UINT64_MAX);
        ck_assert_uint_eq(get_u64(GPU_PATH, DEVICE, "CurrentFrequency"), 800 * MHZ);
        expect_ok(no_ceiling, REQUEST, "Remove", NULL);
        expect_ok(floor, REQUEST, "Remove", NULL);
        assert_no_qos(GPU_PATH);
}
END_TEST

/* Clamp mode: the reply comes after the range was written to sysfs (kHz for cpufreq). */
START_TEST(test_add_request_clamp_writes) {
        _cleanup_free_ char *file = NULL, *path = NULL, *text = NULL;

        ck_assert_int_ge(
                asprintf(&file, "%s/root/sys/devices/system/cpu/cpufreq/policy0/scaling_min_freq", t.tmp), 0);
        path = add_request(CPU_PATH, "min-frequency", 1700 * MHZ);
        ck_assert_uint_eq(get_u64(CPU_PATH, DEVICE, "MinFrequency"), 1700 * MHZ);
        text = df_test_read_file(file);
        ck_assert_str_eq(text, "1700000");
        expect_ok(path, REQUEST, "Remove", NULL);
        free(text);
        text = df_test_read_file(file);
        ck_assert_str_eq(text, "800000");
}
END_TEST

START_TEST(test_add_request_signatures) {
        _cleanup_free_ char *before = snapshot();

        expect_error(INVALID_ARGS, GPU_PATH, DEVICE, "AddRequest", "st", "min-frequency", 400 * MHZ);
        expect_error(INVALID_ARGS, GPU_PATH, DEVICE, "AddRequest", "sua{sv}", "min-frequency", 400, 0);
        expect_error(
                INVALID_ARGS, GPU_PATH, DEVICE, "AddRequest", "sta{ss}", "min-frequency", 400 * MHZ, 1,
                "reason", "x");
        expect_error(
                INVALID_ARGS, GPU_PATH, DEVICE, "AddRequest", "sta{sv}s", "min-frequency", 400 * MHZ, 0, "x");
        expect_error(INVALID_ARGS, GPU_PATH, DEVICE, "AddRequest", NULL);
        assert_unchanged(before);
}
END_TEST

START_TEST(test_add_request_limits) {
        _cleanup_free_ char *before = NULL, *message = NULL;
        char *paths[4];

        /* max-requests-per-client = 4 */
        for (size_t i = 0; i < ELEMENTSOF(paths); i++)
                paths[i] = add_request(GPU_PATH, "min-frequency", (i + 1) * MHZ);
        before = snapshot();
        message = call_error(
                ERR("TooManyRequests"), GPU_PATH, DEVICE, "AddRequest", "sta{sv}", "min-frequency", 400 * MHZ,
                0);
        ck_assert_msg(strstr(message, "max-requests-per-client"), "message: %s", message);
        assert_unchanged(before);
        ck_assert_uint_eq(get_u64(GPU_PATH, DEVICE, "QosMinFrequency"), 4 * MHZ);
        for (size_t i = 0; i < ELEMENTSOF(paths); i++) {
                expect_ok(paths[i], REQUEST, "Remove", NULL);
                free(paths[i]);
        }
        assert_no_qos(GPU_PATH);
}
END_TEST

/* --- request objects ---------------------------------------------------------------------------- */

START_TEST(test_request_lifecycle) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_free_ char *path = NULL, *device = NULL, *type = NULL, *reason = NULL, *app = NULL,
                            *owner = NULL, *requests = NULL, *before = NULL, *alias = NULL;
        struct timespec ts;
        uint64_t created, expires, now;
        const char *p;

        expect_ok(GPU_PATH, DEVICE, "SetFrequency", "t", 200 * MHZ);
        ck_assert_uint_eq(get_u64(GPU_PATH, DEVICE, "CurrentFrequency"), 200 * MHZ);
        clock_gettime(CLOCK_REALTIME, &ts);
        now = (uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u;
        reply = call_ok(
                GPU_PATH, DEVICE, "AddRequest", "sta{sv}", "min-frequency", 300 * MHZ, 3, "reason", "s",
                "benchmark", "application-id", "s", "org.example.Game", "timeout-ms", "u", 3600000);
        ck_assert_str_eq(sd_bus_message_get_signature(reply, true), "o");
        ck_assert_int_ge(sd_bus_message_read(reply, "o", &p), 0);
        ck_assert_int_eq(strncmp(p, ROOT_PATH "/request/", strlen(ROOT_PATH "/request/")), 0);
        path = strdup(p);
        /* Only the path it was given: no alias with a leading zero. */
        ck_assert_int_ge(asprintf(&alias, ROOT_PATH "/request/0%s", path + strlen(ROOT_PATH "/request/")), 0);
        expect_error("org.freedesktop.DBus.Error.UnknownObject", alias, PROPERTIES, "GetAll", "s", REQUEST);

        device = get_string(path, REQUEST, "Device", "o");
        type = get_string(path, REQUEST, "Type", "s");
        reason = get_string(path, REQUEST, "Reason", "s");
        app = get_string(path, REQUEST, "ApplicationId", "s");
        owner = get_string(path, REQUEST, "Owner", "s");
        ck_assert_str_eq(device, GPU_PATH);
        ck_assert_str_eq(type, "min-frequency");
        ck_assert_str_eq(reason, "benchmark");
        ck_assert_str_eq(app, "org.example.Game");
        ck_assert_str_eq(owner, ""); /* a peer-to-peer connection has no unique name */
        ck_assert_uint_eq(get_u64(path, REQUEST, "Value"), 300 * MHZ);
        ck_assert_uint_eq(get_u32(path, REQUEST, "UID"), geteuid());
        ck_assert_uint_eq(get_u32(path, REQUEST, "PID"), getpid());
        created = get_u64(path, REQUEST, "CreatedUsec");
        expires = get_u64(path, REQUEST, "ExpiresUsec");
        ck_assert_uint_ge(created, now);
        ck_assert_uint_lt(created, now + 60000000);
        ck_assert_uint_eq(expires, created + UINT64_C(3600000000));

        /* The device was re-evaluated before the reply: the floor raised the frequency, snapped up. */
        requests = get_paths(GPU_PATH, DEVICE, "Requests");
        ck_assert_str_eq(requests, path);
        ck_assert_uint_eq(get_u64(GPU_PATH, DEVICE, "QosMinFrequency"), 300 * MHZ);
        ck_assert_uint_eq(get_u64(GPU_PATH, DEVICE, "MinFrequency"), 300 * MHZ);
        ck_assert_uint_eq(get_u64(GPU_PATH, DEVICE, "CurrentFrequency"), 400 * MHZ);

        /* Update: validated like AddRequest; a refused one changes nothing. */
        expect_ok(path, REQUEST, "Update", "t", 800 * MHZ);
        ck_assert_uint_eq(get_u64(path, REQUEST, "Value"), 800 * MHZ);
        ck_assert_uint_eq(get_u64(GPU_PATH, DEVICE, "QosMinFrequency"), 800 * MHZ);
        ck_assert_uint_eq(get_u64(GPU_PATH, DEVICE, "MinFrequency"), 800 * MHZ);
        ck_assert_uint_eq(get_u64(GPU_PATH, DEVICE, "CurrentFrequency"), 800 * MHZ);
        expect_ok(path, REQUEST, "Update", "t", 800 * MHZ); /* the same value: nothing to do */
        before = snapshot();
        expect_error(INVALID_ARGS, path, REQUEST, "Update", "u", 5);
        expect_error(INVALID_ARGS, path, REQUEST, "Update", NULL);
        expect_error(INVALID_ARGS, path, REQUEST, "Remove", "t", UINT64_C(1));
        assert_unchanged(before);
        ck_assert_uint_eq(get_u64(path, REQUEST, "Value"), 800 * MHZ);

        /* Remove: the object goes, and so does its effect. */
        expect_ok(path, REQUEST, "Remove", NULL);
        assert_no_qos(GPU_PATH);
        ck_assert_uint_eq(get_u64(GPU_PATH, DEVICE, "MinFrequency"), 200 * MHZ);
        ck_assert_uint_eq(get_u64(GPU_PATH, DEVICE, "CurrentFrequency"), 200 * MHZ);
        expect_error("org.devfreqd.Devfreq1.Error.NoSuchRequest", path, PROPERTIES, "GetAll", "s", REQUEST);
        expect_error("org.devfreqd.Devfreq1.Error.NoSuchRequest", path, REQUEST, "Remove", NULL);
}
END_TEST

START_TEST(test_request_update_invalid) {
        _cleanup_free_ char *max = add_request(GPU_PATH, "max-frequency", 400 * MHZ);
        _cleanup_free_ char *lat = add_request(GPU_PATH, "latency", 1000);
        _cleanup_free_ char *before = snapshot();

        ck_assert_uint_eq(get_u64(GPU_PATH, DEVICE, "QosMaxFrequency"), 400 * MHZ);
        ck_assert_uint_eq(get_u32(GPU_PATH, DEVICE, "QosLatency"), 1000);
        expect_error(INVALID_ARGS, max, REQUEST, "Update", "t", UINT64_C(0));
        expect_error(INVALID_ARGS, lat, REQUEST, "Update", "t", (uint64_t) UINT32_MAX + 1);
        assert_unchanged(before);
        expect_ok(lat, REQUEST, "Update", "t", UINT64_C(0)); /* the lowest-latency point */
        ck_assert_uint_eq(get_u32(GPU_PATH, DEVICE, "QosLatency"), 0);
        expect_ok(max, REQUEST, "Remove", NULL);
        expect_ok(lat, REQUEST, "Remove", NULL);
        assert_no_qos(GPU_PATH);
}
END_TEST

/* A lease too long for the clocks: refused, or with an expiry after its creation, never wrapped. */
START_TEST(test_request_lease_too_long) {
        struct timespec ts;
        uint64_t boottime, timeout;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const sd_bus_error *e = NULL;
        const char *path;

        clock_gettime(CLOCK_BOOTTIME, &ts);
        boottime = (uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u;
        for (timeout = (UINT64_MAX - boottime) / 1000 - 1000000; timeout > 1000; timeout /= 2) {
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;

                ck_assert_int_ge(
                        sd_bus_message_new_method_call(t.client, &m, NULL, GPU_PATH, DEVICE, "AddRequest"), 0);
                ck_assert_int_ge(
                        sd_bus_message_append(m, "sta{sv}", "min-frequency", 0, 1, "timeout-ms", "t", timeout),
                        0);
                reply = sd_bus_message_unref(reply);
                reply = send_call(m);
                e = sd_bus_message_get_error(reply);
                if (!e)
                        break;
                ck_assert_str_eq(e->name, INVALID_ARGS);
        }
        ck_assert_msg(!e, "no lease of at most %" PRIu64 " ms was accepted", (UINT64_MAX - boottime) / 1000);
        ck_assert_int_ge(sd_bus_message_read(reply, "o", &path), 0);
        ck_assert_uint_gt(get_u64(path, REQUEST, "ExpiresUsec"), get_u64(path, REQUEST, "CreatedUsec"));
}
END_TEST

START_TEST(test_request_lease_expires) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = call_ok(
                GPU_PATH, DEVICE, "AddRequest", "sta{sv}", "min-frequency", 800 * MHZ, 1, "timeout-ms", "t",
                UINT64_C(20));
        bool gone = false;

        ck_assert_uint_eq(get_u64(GPU_PATH, DEVICE, "QosMinFrequency"), 800 * MHZ);
        for (int i = 0; i < 200 && !gone; i++) {
                run_until(&gone, 10000);
                gone = get_u64(GPU_PATH, DEVICE, "QosMinFrequency") == 0;
        }
        ck_assert(gone);
        assert_no_qos(GPU_PATH);
}
END_TEST

/* --- device methods ----------------------------------------------------------------------------- */

START_TEST(test_set_governor) {
        _cleanup_free_ char *before = snapshot(), *governor = NULL, *message = NULL;

        message = call_error(ERR("InvalidGovernor"), GPU_PATH, DEVICE, "SetGovernor", "s", "turbo");
        ck_assert_ptr_nonnull(strstr(message, "'turbo'"));
        expect_error(ERR("InvalidGovernor"), GPU_PATH, DEVICE, "SetGovernor", "s", "");
        /* clamp mode: only what the kernel offers (schedutil is; simple_ondemand is not) */
        expect_error(ERR("InvalidGovernor"), CPU_PATH, DEVICE, "SetGovernor", "s", "simple_ondemand");
        expect_error(INVALID_ARGS, GPU_PATH, DEVICE, "SetGovernor", "u", 1);
        expect_error(INVALID_ARGS, GPU_PATH, DEVICE, "SetGovernor", NULL);
        assert_unchanged(before);

        expect_ok(GPU_PATH, DEVICE, "SetGovernor", "s", "powersave");
        governor = get_string(GPU_PATH, DEVICE, "Governor", "s");
        ck_assert_str_eq(governor, "powersave");
        ck_assert_uint_eq(get_u64(GPU_PATH, DEVICE, "CurrentFrequency"), 200 * MHZ);
        free(governor);
        expect_ok(CPU_PATH, DEVICE, "SetGovernor", "s", "performance");
        governor = get_string(CPU_PATH, DEVICE, "Governor", "s");
        ck_assert_str_eq(governor, "performance");
}
END_TEST

START_TEST(test_set_frequency) {
        _cleanup_free_ char *before = snapshot();

        expect_error(ERR("WrongGovernor"), DMC_PATH, DEVICE, "SetFrequency", "t", 400 * MHZ);
        expect_error(ERR("WrongGovernor"), CPU_PATH, DEVICE, "SetFrequency", "t", 1600 * MHZ);
        expect_error(INVALID_ARGS, GPU_PATH, DEVICE, "SetFrequency", "u", 400);
        assert_unchanged(before);

        /* snapped like any target: up to the next point */
        expect_ok(GPU_PATH, DEVICE, "SetFrequency", "t", 300 * MHZ);
        ck_assert_uint_eq(get_u64(GPU_PATH, DEVICE, "CurrentFrequency"), 400 * MHZ);
        expect_ok(GPU_PATH, DEVICE, "SetGovernor", "s", "performance");
        expect_error(ERR("WrongGovernor"), GPU_PATH, DEVICE, "SetFrequency", "t", 400 * MHZ);
}
END_TEST

START_TEST(test_set_tunable) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_free_ char *before = snapshot();
        const char *name;
        uint32_t value;
        bool seen = false;
        int r;

        expect_error(INVALID_ARGS, DMC_PATH, DEVICE, "SetTunable", "su", "speed", 1);
        expect_error(INVALID_ARGS, DMC_PATH, DEVICE, "SetTunable", "su", "upthreshold", 101);
        expect_error(INVALID_ARGS, DMC_PATH, DEVICE, "SetTunable", "su", "upthreshold", 0);
        expect_error(INVALID_ARGS, DMC_PATH, DEVICE, "SetTunable", "su", "downdifferential", 91);
        expect_error(
                INVALID_ARGS, GPU_PATH, DEVICE, "SetTunable", "su", "upthreshold", 80); /* userspace: none */
        expect_error(INVALID_ARGS, CPU_PATH, DEVICE, "SetTunable", "su", "up_threshold", 80); /* clamp */
        expect_error(INVALID_ARGS, DMC_PATH, DEVICE, "SetTunable", "st", "upthreshold", UINT64_C(80));
        assert_unchanged(before);

        expect_ok(DMC_PATH, DEVICE, "SetTunable", "su", "upthreshold", 80);
        reply = get_property(DMC_PATH, DEVICE, "Tunables", "a{su}");
        ck_assert_int_ge(sd_bus_message_enter_container(reply, 'a', "{su}"), 0);
        while ((r = sd_bus_message_read(reply, "{su}", &name, &value)) > 0)
                if (streq(name, "upthreshold")) {
                        ck_assert_uint_eq(value, 80);
                        seen = true;
                }
        ck_assert_int_ge(r, 0);
        ck_assert(seen);
}
END_TEST

START_TEST(test_set_operating_point) {
        _cleanup_free_ char *before = snapshot(), *after_two = NULL, *message = NULL;

        expect_error(ERR("NoSuchOperatingPoint"), GPU_PATH, DEVICE, "SetOperatingPoint", "tb", 300 * MHZ, 0);
        expect_error(ERR("NoSuchOperatingPoint"), GPU_PATH, DEVICE, "SetOperatingPoint", "tb", UINT64_C(0), 1);
        expect_error(INVALID_ARGS, GPU_PATH, DEVICE, "SetOperatingPoint", "tu", 400 * MHZ, 0);
        assert_unchanged(before);

        expect_ok(GPU_PATH, DEVICE, "SetOperatingPoint", "tb", 200 * MHZ, 0);
        expect_ok(GPU_PATH, DEVICE, "SetOperatingPoint", "tb", 800 * MHZ, 0);
        expect_ok(GPU_PATH, DEVICE, "SetOperatingPoint", "tb", 800 * MHZ, 0); /* already disabled */
        after_two = snapshot();
        message = call_error(INVALID_ARGS, GPU_PATH, DEVICE, "SetOperatingPoint", "tb", 400 * MHZ, 0);
        ck_assert_msg(strstr(message, "last enabled point"), "message: %s", message);
        assert_unchanged(after_two);
        ck_assert_uint_eq(get_u64(GPU_PATH, DEVICE, "MinFrequency"), 400 * MHZ);
        ck_assert_uint_eq(get_u64(GPU_PATH, DEVICE, "MaxFrequency"), 400 * MHZ);
        expect_ok(GPU_PATH, DEVICE, "SetOperatingPoint", "tb", 800 * MHZ, 1);
        ck_assert_uint_eq(get_u64(GPU_PATH, DEVICE, "MaxFrequency"), 800 * MHZ);
}
END_TEST

START_TEST(test_operating_points_property) {
        _cleanup_(sd_bus_message_unrefp)
                sd_bus_message *reply = get_property(GPU_PATH, DEVICE, "OperatingPoints", "a(tuub)");
        static const struct {
                uint64_t freq;
                uint32_t microvolt, latency;
        } expected[] = {
                { 200 * MHZ, 825000, 2000 },
                { 400 * MHZ, 900000, 1000 },
                { 800 * MHZ, 1050000, 200 },
        };
        uint64_t freq;
        uint32_t microvolt, latency;
        int enabled, r;
        size_t n = 0;

        ck_assert_int_ge(sd_bus_message_enter_container(reply, 'a', "(tuub)"), 0);
        while ((r = sd_bus_message_read(reply, "(tuub)", &freq, &microvolt, &latency, &enabled)) > 0) {
                ck_assert_uint_lt(n, ELEMENTSOF(expected));
                ck_assert_uint_eq(freq, expected[n].freq);
                ck_assert_uint_eq(microvolt, expected[n].microvolt);
                ck_assert_uint_eq(latency, expected[n].latency);
                ck_assert_int_eq(enabled, 1);
                n++;
        }
        ck_assert_int_ge(r, 0);
        ck_assert_uint_eq(n, ELEMENTSOF(expected));
}
END_TEST

/* GetStatistics: four out arguments, a square table whose cells add up to the total. */
static void check_statistics(const char *path, size_t n_expected) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = call_ok(path, DEVICE, "GetStatistics", NULL);
        const void *freqs, *ms, *row;
        size_t n_freqs, n_ms, n_row, rows = 0;
        uint64_t total, sum = 0;
        int r;

        ck_assert_str_eq(sd_bus_message_get_signature(reply, true), "atataatt");
        ck_assert_int_ge(sd_bus_message_read_array(reply, 't', &freqs, &n_freqs), 0);
        ck_assert_int_ge(sd_bus_message_read_array(reply, 't', &ms, &n_ms), 0);
        ck_assert_uint_eq(n_freqs / sizeof(uint64_t), n_expected);
        ck_assert_uint_eq(n_ms / sizeof(uint64_t), n_expected);
        ck_assert_int_ge(sd_bus_message_enter_container(reply, 'a', "at"), 0);
        while ((r = sd_bus_message_read_array(reply, 't', &row, &n_row)) > 0) {
                const uint64_t *cells = row;

                ck_assert_uint_eq(n_row / sizeof(uint64_t), n_expected);
                for (size_t j = 0; j < n_expected; j++)
                        sum += cells[j];
                rows++;
        }
        ck_assert_int_ge(r, 0);
        ck_assert_uint_eq(rows, n_expected);
        ck_assert_int_ge(sd_bus_message_exit_container(reply), 0);
        ck_assert_int_ge(sd_bus_message_read(reply, "t", &total), 0);
        ck_assert_uint_eq(sum, total);
        ck_assert_uint_eq(get_u64(path, DEVICE, "TransitionCount"), total);
}

START_TEST(test_statistics) {
        check_statistics(GPU_PATH, 3);
        check_statistics(CPU_PATH, 5);
        expect_error(INVALID_ARGS, GPU_PATH, DEVICE, "GetStatistics", "s", "all");
        expect_ok(CPU_PATH, DEVICE, "ResetStatistics", NULL);
        expect_error(INVALID_ARGS, CPU_PATH, DEVICE, "ResetStatistics", "b", 1);
}
END_TEST

/* --- profiles ------------------------------------------------------------------------------------ */

#define PROFILES                                                                                             \
        "[profile saver]\ngpu.governor = powersave\n*.max-frequency = 400MHz\n"                              \
        "[profile fast]\ndmc.upthreshold = 50\ngpu.min-frequency = 800MHz\n"

/* Rewrite the configuration (keeping setup's groups) with `extra` in [daemon] or after it, and Reload. */
static void reload_with(const char *extra) {
        struct group *g = getgrgid(getgid());
        _cleanup_free_ char *text = NULL;

        ck_assert_int_ge(asprintf(&text, "allow-groups = %s\n%s", g ? g->gr_name : "root", extra), 0);
        write_config(text);
        expect_ok(ROOT_PATH, MANAGER, "Reload", NULL);
}

static uint32_t get_tunable(const char *path, const char *tunable) {
        _cleanup_(sd_bus_message_unrefp)
                sd_bus_message *reply = get_property(path, DEVICE, "Tunables", "a{su}");
        const char *name;
        uint32_t value;
        int r;

        ck_assert_int_ge(sd_bus_message_enter_container(reply, 'a', "{su}"), 0);
        while ((r = sd_bus_message_read(reply, "{su}", &name, &value)) > 0)
                if (streq(name, tunable))
                        return value;
        ck_abort_msg("%s has no tunable %s", path, tunable);
        return 0;
}

#define assert_string(path, iface, name, type, want)                                                         \
        do {                                                                                                 \
                _cleanup_free_ char *_s = get_string(path, iface, name, type);                               \
                ck_assert_str_eq(_s, want);                                                                  \
        } while (0)

START_TEST(test_profile_switch) {
        _cleanup_free_ char *req = NULL, *message = NULL;

        reload_with(PROFILES);
        assert_string(ROOT_PATH, MANAGER, "ActiveProfile", "s", "");
        expect_ok(ROOT_PATH, MANAGER, "SetProfile", "s", "saver");
        assert_string(ROOT_PATH, MANAGER, "ActiveProfileSource", "s", "client");
        assert_string(GPU_PATH, DEVICE, "Governor", "s", "powersave");
        ck_assert_uint_eq(get_u64(GPU_PATH, DEVICE, "QosMaxFrequency"), 400 * MHZ);
        ck_assert_uint_eq(get_u64(DMC_PATH, DEVICE, "QosMaxFrequency"), 400 * MHZ);
        ck_assert_uint_eq(get_u64(CPU_PATH, DEVICE, "QosMaxFrequency"), 400 * MHZ);

        /* The daemon's own request: its Owner is the daemon's end (here the peer's name ""). */
        req = get_paths(GPU_PATH, DEVICE, "Requests");
        ck_assert_msg(strncmp(req, ROOT_PATH "/request/", strlen(ROOT_PATH "/request/")) == 0, "%s", req);
        assert_string(req, REQUEST, "Reason", "s", "profile saver");
        ck_assert_uint_eq(get_u32(req, REQUEST, "UID"), 0);
        ck_assert_uint_eq(get_u32(req, REQUEST, "PID"), (uint32_t) getpid());
        message = call_error("org.freedesktop.DBus.Error.AccessDenied", req, REQUEST, "Update", "t", 800 * MHZ);
        ck_assert_msg(strstr(message, "only a profile switch changes it"), "%s", message);
        expect_error("org.freedesktop.DBus.Error.AccessDenied", req, REQUEST, "Remove", NULL);
        /* Four requests of a client fit beside the daemon's three (max-requests-per-client = 4). */
        for (int i = 0; i < 4; i++)
                expect_ok(DMC_PATH, DEVICE, "AddRequest", "sta{sv}", "min-frequency", (uint64_t) 0, 0);

        /* Leaving restores the governor; the next profile's floor and tunable. */
        expect_ok(ROOT_PATH, MANAGER, "SetProfile", "s", "fast");
        assert_string(GPU_PATH, DEVICE, "Governor", "s", "userspace");
        ck_assert_uint_eq(get_u64(GPU_PATH, DEVICE, "QosMaxFrequency"), UINT64_MAX);
        ck_assert_uint_eq(get_u64(GPU_PATH, DEVICE, "QosMinFrequency"), 800 * MHZ);
        ck_assert_uint_eq(get_tunable(DMC_PATH, "upthreshold"), 50);

        /* An override of the profile's key is dropped at the next switch; another choice persists. */
        expect_ok(DMC_PATH, DEVICE, "SetTunable", "su", "upthreshold", 70);
        expect_ok(DMC_PATH, DEVICE, "SetTunable", "su", "downdifferential", 10);
        expect_ok(ROOT_PATH, MANAGER, "SetProfile", "s", "fast"); /* again: a no-op, the override stays */
        ck_assert_uint_eq(get_tunable(DMC_PATH, "upthreshold"), 70);
        expect_ok(ROOT_PATH, MANAGER, "SetProfile", "s", "");
        ck_assert_uint_eq(get_tunable(DMC_PATH, "upthreshold"), 90);
        ck_assert_uint_eq(get_tunable(DMC_PATH, "downdifferential"), 10);
        assert_string(ROOT_PATH, MANAGER, "ActiveProfileSource", "s", "");

        expect_error(ERR("NoSuchProfile"), ROOT_PATH, MANAGER, "SetProfile", "s", "turbo");
        assert_string(ROOT_PATH, MANAGER, "ActiveProfile", "s", "");
}
END_TEST

START_TEST(test_profile_reload) {
        _cleanup_free_ char *req = NULL, *after = NULL;

        reload_with(PROFILES);
        expect_ok(ROOT_PATH, MANAGER, "SetProfile", "s", "saver");
        req = get_paths(DMC_PATH, DEVICE, "Requests");

        /* The active profile re-read: its request is updated in place. */
        reload_with("[profile saver]\n*.max-frequency = 200MHz\n");
        after = get_paths(DMC_PATH, DEVICE, "Requests");
        ck_assert_str_eq(after, req);
        ck_assert_uint_eq(get_u64(req, REQUEST, "Value"), 200 * MHZ);
        assert_string(GPU_PATH, DEVICE, "Governor", "s", "userspace"); /* the governor line went */

        /* Gone: none is active, its requests with it. */
        reload_with("[profile other]\ngpu.min-frequency = 400MHz\n");
        assert_string(ROOT_PATH, MANAGER, "ActiveProfile", "s", "");
        free(after);
        after = get_paths(DMC_PATH, DEVICE, "Requests");
        ck_assert_str_eq(after, "");
        ck_assert_uint_eq(get_u64(DMC_PATH, DEVICE, "QosMaxFrequency"), UINT64_MAX);
}
END_TEST

/* A second manager on the same state directory (a restart), with its own runtime directory. */
static struct manager *restart(const char *run) {
        _cleanup_free_ char *root = df_test_path(t.tmp, "root"), *state = df_test_path(t.tmp, "state"),
                            *runtime = df_test_path(t.tmp, run);
        struct manager_options o = {
                .config_file = t.config, .root = root, .runtime_dir = runtime, .state_dir = state
        };
        struct manager *m = NULL;

        ck_assert_int_eq(mkdir(runtime, 0755), 0);
        ck_assert_int_ge(manager_new(t.event, &o, &m), 0);
        ck_assert_int_ge(manager_start(m), 0);
        return m;
}

START_TEST(test_profile_start) {
        struct manager *m;

        reload_with(PROFILES);
        expect_ok(ROOT_PATH, MANAGER, "SetProfile", "s", "fast");

        /* The persisted choice wins over no default-profile... */
        m = restart("run2");
        ck_assert_str_eq(m->profile, "fast");
        ck_assert_int_eq(m->profile_source, PROFILE_SOURCE_CLIENT);
        manager_free(m);

        /* ...and a default-profile changed since wins over the persisted choice. */
        reload_with("default-profile = saver\n" PROFILES);
        m = restart("run3");
        ck_assert_str_eq(m->profile, "saver");
        ck_assert_int_eq(m->profile_source, PROFILE_SOURCE_DEFAULT);
        manager_free(m);
}
END_TEST

static Suite *suite(void) {
        Suite *s = suite_create("bus");
        TCase *tc;

        tc = tcase_create("manager");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_list_devices_sorted);
        tcase_add_test(tc, test_get_device);
        tcase_add_test(tc, test_manager_signatures);
        tcase_add_test(tc, test_manager_properties);
        tcase_add_test(tc, test_reload_invalid_keeps_old);
        tcase_add_test(tc, test_unknown_objects);
        tcase_add_test(tc, test_log_control);
        suite_add_tcase(s, tc);

        tc = tcase_create("add-request");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_add_request_invalid);
        tcase_add_test(tc, test_add_request_signatures);
        tcase_add_test(tc, test_add_request_limits);
        tcase_add_test(tc, test_add_request_edges);
        tcase_add_test(tc, test_add_request_clamp_writes);
        suite_add_tcase(s, tc);

        tc = tcase_create("request");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_request_lifecycle);
        tcase_add_test(tc, test_request_update_invalid);
        tcase_add_test(tc, test_request_lease_expires);
        tcase_add_test(tc, test_request_lease_too_long);
        suite_add_tcase(s, tc);

        tc = tcase_create("device");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_set_governor);
        tcase_add_test(tc, test_set_frequency);
        tcase_add_test(tc, test_set_tunable);
        tcase_add_test(tc, test_set_operating_point);
        tcase_add_test(tc, test_operating_points_property);
        tcase_add_test(tc, test_statistics);
        suite_add_tcase(s, tc);

        tc = tcase_create("profile");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_profile_switch);
        tcase_add_test(tc, test_profile_reload);
        tcase_add_test(tc, test_profile_start);
        suite_add_tcase(s, tc);

        return s;
}

int main(void) {
        return df_test_run(suite());
}
