/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Fuzzing harness: the D-Bus argument validation. Arbitrary bytes become a method call on one of
 * the daemon's objects, with an arbitrary signature and values, sent over a socketpair to the
 * real bus layer and manager on a fake root; every call must get a reply (a result or an error)
 * and the daemon must keep serving. */

#include <errno.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>
#include <systemd/sd-id128.h>
#include <time.h>

#include "bus-internal.h"
#include "fuzz.h"
#include "logging.h"
#include "macro.h"
#include "manager.h"

#define GPU_NODE "sys/devices/platform/ff9a0000.gpu/devfreq/ff9a0000.gpu"

static const char config[] = "[daemon]\n"
                             "autodiscover = no\n"
                             "max-requests-per-client = 8\n"
                             "[device gpu]\n"
                             "path = /sys/class/devfreq/ff9a0000.gpu\n"
                             "mode = govern\n"
                             "governor = userspace\n"
                             "opp = 200MHz 825mV latency=2ms\n"
                             "opp = 400MHz 900mV latency=1ms\n"
                             "opp = 800MHz 1050mV latency=200us\n"
                             "[device dmc]\n"
                             "path = /sys/class/devfreq/dmc\n"
                             "mode = govern\n"
                             "governor = simple_ondemand\n"
                             "load = percent:/sys/devices/platform/dmc/load\n"
                             "polling-interval = 3600s\n"
                             "[device cpu0]\n"
                             "path = /sys/devices/system/cpu/cpufreq/policy0\n"
                             "mode = clamp\n";

static struct {
        char tmp[64];
        sd_event *event;
        struct manager *manager;
        struct bus *bus;
        sd_bus *server;
        sd_bus *client;
} f;

static void die(const char *what, int r) {
        fprintf(stderr, "fuzz-bus: %s: %s\n", what, strerror(r < 0 ? -r : r));
        abort();
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(path);
}

static void cleanup(void) {
        f.client = sd_bus_flush_close_unref(f.client);
        f.bus = bus_free(f.bus);
        f.server = sd_bus_unref(f.server);
        f.manager = manager_free(f.manager);
        f.event = sd_event_unref(f.event);
        if (f.tmp[0])
                (void) nftw(f.tmp, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
        const char *top = getenv("top_srcdir");
        char *cmd = NULL, root[128], run[128], state[128], conf[128];
        struct manager_options o = {};
        sd_id128_t id;
        FILE *cf;
        int fds[2], r;

        log_set_max_level(LOG_EMERG); /* refusals are expected by the thousand */
        snprintf(f.tmp, sizeof(f.tmp), "/tmp/devfreqd-fuzz-bus-XXXXXX");
        if (!mkdtemp(f.tmp))
                die("mkdtemp", errno);
        atexit(cleanup);
        snprintf(root, sizeof(root), "%s/root", f.tmp);
        snprintf(run, sizeof(run), "%s/run", f.tmp);
        snprintf(state, sizeof(state), "%s/state", f.tmp);
        snprintf(conf, sizeof(conf), "%s/devfreqd.conf", f.tmp);
        /* No fake kernel here: the userspace governor's file is made up front. */
        if (asprintf(
                    &cmd,
                    "'%s/tests/fixtures/mkroot' '%s' && mkdir '%s/" GPU_NODE "/userspace' && "
                    "echo 0 >'%s/" GPU_NODE "/userspace/set_freq'",
                    top && *top ? top : TOP_SRCDIR, root, root, root) < 0 ||
            system(cmd) != 0)
                die("building the fake root", EIO);
        free(cmd);
        cf = fopen(conf, "we");
        if (!cf || fputs(config, cf) < 0 || fclose(cf) != 0)
                die("writing the configuration", errno);
        if (mkdir(run, 0755) < 0 || mkdir(state, 0755) < 0)
                die("mkdir", errno);

        o.config_file = conf;
        o.root = root;
        o.runtime_dir = run;
        o.state_dir = state;
        if ((r = sd_event_new(&f.event)) < 0)
                die("sd_event_new", r);
        if ((r = manager_new(f.event, &o, &f.manager)) < 0 || (r = manager_start(f.manager)) < 0)
                die("starting the manager", r);
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, fds) < 0)
                die("socketpair", errno);
        if ((r = sd_id128_randomize(&id)) < 0 || (r = sd_bus_new(&f.server)) < 0 ||
            (r = sd_bus_set_fd(f.server, fds[0], fds[0])) < 0 ||
            (r = sd_bus_set_server(f.server, 1, id)) < 0 || (r = sd_bus_start(f.server)) < 0 ||
            (r = bus_new_with_connection(f.event, f.manager, f.server, &f.bus)) < 0)
                die("serving the objects", r);
        if ((r = sd_bus_new(&f.client)) < 0 || (r = sd_bus_set_fd(f.client, fds[1], fds[1])) < 0 ||
            (r = sd_bus_start(f.client)) < 0 || (r = sd_bus_attach_event(f.client, f.event, 0)) < 0)
                die("connecting the client", r);
        return 0;
}

/* --- the input, read front to back; running out gives zeros --------------------------------- */

struct input {
        const uint8_t *p;
        size_t n;
};

static uint8_t u8(struct input *in) {
        if (in->n == 0)
                return 0;
        in->n--;
        return *in->p++;
}

static uint64_t u64(struct input *in) {
        uint64_t v = 0;

        for (int i = 0; i < 8; i++)
                v = v << 8 | u8(in);
        return v;
}

/* A string of up to 255 bytes; some are long on purpose (the 256-byte option limit). */
static char *string(struct input *in) {
        size_t len = u8(in);
        char *s;

        if (len == 255)
                len = 300;
        s = calloc(1, len + 1);
        if (!s)
                abort();
        for (size_t i = 0; i < len; i++) {
                uint8_t c = u8(in);
                s[i] = (char) (c ? c : 'x');
        }
        return s;
}

static const char *const words[] = {
        "min-frequency", "max-frequency",    "latency",     "reason",    "application-id",
        "timeout-ms",    "userspace",        "performance", "powersave", "simple_ondemand",
        "upthreshold",   "downdifferential", "passive",     "gpu",       "dmc",
        "cpu0",
};

/* Strings are mostly the words the daemon knows, sometimes anything. */
static char *word(struct input *in) {
        uint8_t c = u8(in);

        if (c < 200)
                return strdup(words[c % ELEMENTSOF(words)]);
        return string(in);
}

static int append_basic(sd_bus_message *m, struct input *in, char type) {
        _cleanup_free_ char *s = NULL;
        uint64_t v = u64(in);
        uint32_t u = (uint32_t) v;
        int b = (int) (v & 1);
        uint8_t y = (uint8_t) v;
        double d = (double) v;

        switch (type) {
        case 's':
                s = word(in);
                return sd_bus_message_append_basic(m, 's', s);
        case 'o':
                return sd_bus_message_append_basic(m, 'o', v & 1 ? "/org/devfreqd/Devfreq1" : "/");
        case 'g':
                return sd_bus_message_append_basic(m, 'g', v & 1 ? "st" : "a{sv}");
        case 't':
        case 'x':
                return sd_bus_message_append_basic(m, type, &v);
        case 'u':
        case 'i':
                return sd_bus_message_append_basic(m, type, &u);
        case 'b':
                return sd_bus_message_append_basic(m, 'b', &b);
        case 'y':
                return sd_bus_message_append_basic(m, 'y', &y);
        default:
                return sd_bus_message_append_basic(m, 'd', &d);
        }
}

/* An a{sv} of up to 7 entries, each with a basic variant. */
static int append_options(sd_bus_message *m, struct input *in) {
        static const char types[] = "stuxbyiodg";
        unsigned n = u8(in) % 8;
        int r;

        r = sd_bus_message_open_container(m, 'a', "{sv}");
        for (unsigned i = 0; r >= 0 && i < n; i++) {
                _cleanup_free_ char *key = word(in);
                char type = types[u8(in) % (sizeof(types) - 1)], sig[2] = { type, 0 };

                r = sd_bus_message_open_container(m, 'e', "sv");
                if (r >= 0)
                        r = sd_bus_message_append_basic(m, 's', key);
                if (r >= 0)
                        r = sd_bus_message_open_container(m, 'v', sig);
                if (r >= 0)
                        r = append_basic(m, in, type);
                if (r >= 0)
                        r = sd_bus_message_close_container(m);
                if (r >= 0)
                        r = sd_bus_message_close_container(m);
        }
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        return r;
}

static int on_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        bool *done = userdata;

        *done = true;
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static const char *const paths[] = {
                "/org/devfreqd/Devfreq1/device/gpu",  "/org/devfreqd/Devfreq1/device/dmc",
                "/org/devfreqd/Devfreq1/device/cpu0", "/org/devfreqd/Devfreq1",
                "/org/freedesktop/LogControl1",
        };
        static const char *const device_methods[] = {
                "AddRequest",        "SetGovernor",   "SetFrequency",    "SetTunable",
                "SetOperatingPoint", "GetStatistics", "ResetStatistics",
        };
        static const char *const manager_methods[] = { "ListDevices", "GetDevice", "Reload" };
        static const char types[] = "stuxbyiodgA"; /* A: an a{sv} */
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        struct input in = { data, size };
        const char *path, *iface, *member;
        bool done = false;
        unsigned target, n_args;
        int r;

        if (!f.client)
                LLVMFuzzerInitialize(NULL, NULL);
        target = u8(&in) % ELEMENTSOF(paths);
        path = paths[target];
        if (target < 3) {
                iface = IFACE_DEVICE;
                member = device_methods[u8(&in) % ELEMENTSOF(device_methods)];
        } else if (target == 3) {
                iface = IFACE_MANAGER;
                member = manager_methods[u8(&in) % ELEMENTSOF(manager_methods)];
        } else {
                iface = "org.freedesktop.DBus.Properties";
                member = u8(&in) & 1 ? "Set" : "Get";
        }
        if (u8(&in) == 0xff) /* now and then a request object, live or not */
                path = "/org/devfreqd/Devfreq1/request/1", iface = IFACE_REQUEST, member = "Update";

        r = sd_bus_message_new_method_call(f.client, &m, NULL, path, iface, member);
        if (r < 0)
                die("new method call", r);
        n_args = u8(&in) % 5;
        for (unsigned i = 0; i < n_args && r >= 0; i++) {
                char type = types[u8(&in) % (sizeof(types) - 1)];
                r = type == 'A' ? append_options(m, &in) : append_basic(m, &in, type);
        }
        if (r < 0)
                return 0; /* sd-bus refused to build it (invalid UTF-8 ...): nothing reaches the daemon */

        r = sd_bus_call_async(f.client, NULL, m, on_reply, &done, 5 * 1000000);
        if (r < 0)
                die("sending", r);
        for (int i = 0; !done && i < 10000; i++)
                if ((r = sd_event_run(f.event, 100000)) < 0)
                        die("event loop", r);
        if (!done)
                abort(); /* the daemon never answered */

        /* Keep the state bounded: requests made by this input go (through the real path). */
        while (f.bus->clients && f.bus->clients->requests)
                request_drop(f.bus->clients->requests, true);
        return 0;
}
