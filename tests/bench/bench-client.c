/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The bus side of the benchmarks (tests/bench/run): request round trips beside Peer.Ping, release
 * latency after SIGKILL, request scale, add/remove cycles, filling, start-up time to READY=1, and
 * round trips during another caller's flood of large reads. */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

#define DEST "org.devfreqd.Devfreq1"
#define IFACE_DEVICE "org.devfreqd.Devfreq1.Device"
#define IFACE_REQUEST "org.devfreqd.Devfreq1.Request"
#define DEVICE_PREFIX "/org/devfreqd/Devfreq1/device/"
#define CALL_TIMEOUT_USEC (30 * UINT64_C(1000000))

static const char *address;

static void die(const char *what, int r) {
        fprintf(stderr, "bench-client: %s: %s\n", what, strerror(r < 0 ? -r : r));
        exit(EXIT_FAILURE);
}

static uint64_t now_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static sd_bus *connect_bus(void) {
        sd_bus *bus = NULL;
        int r;

        r = sd_bus_new(&bus);
        if (r >= 0)
                r = sd_bus_set_address(bus, address);
        if (r >= 0)
                r = sd_bus_set_bus_client(bus, 1);
        if (r >= 0)
                r = sd_bus_start(bus);
        if (r < 0)
                die("connecting to the bus", r);
        return bus;
}

static char *device_path(const char *name) {
        char *p = NULL;
        int r = sd_bus_path_encode("/org/devfreqd/Devfreq1/device", name, &p);

        if (r < 0)
                die("encoding the device path", r);
        return p;
}

static void check_call(int r, sd_bus_error *e, const char *what) {
        if (r >= 0)
                return;
        fprintf(stderr, "bench-client: %s: %s\n", what, e->message ? e->message : strerror(-r));
        exit(EXIT_FAILURE);
}

static void ping(sd_bus *bus) {
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        int r;

        r = sd_bus_call_method(
                bus, DEST, "/org/devfreqd/Devfreq1", "org.freedesktop.DBus.Peer", "Ping", &e, &reply, "");
        check_call(r, &e, "Ping");
        sd_bus_message_unref(reply);
}

/* AddRequest; returns the request's object path (caller frees). */
static char *add_request(sd_bus *bus, const char *dev, const char *type, uint64_t value) {
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        const char *path;
        char *copy;
        int r;

        r = sd_bus_call_method(
                bus, DEST, dev, IFACE_DEVICE, "AddRequest", &e, &reply, "sta{sv}", type, value, 0);
        check_call(r, &e, "AddRequest");
        r = sd_bus_message_read(reply, "o", &path);
        if (r < 0)
                die("reading the AddRequest reply", r);
        copy = strdup(path);
        sd_bus_message_unref(reply);
        if (!copy)
                die("strdup", ENOMEM);
        return copy;
}

static void update_request(sd_bus *bus, const char *req, uint64_t value) {
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        int r;

        r = sd_bus_call_method(bus, DEST, req, IFACE_REQUEST, "Update", &e, &reply, "t", value);
        check_call(r, &e, "Update");
        sd_bus_message_unref(reply);
}

static void remove_request(sd_bus *bus, const char *req) {
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        int r;

        r = sd_bus_call_method(bus, DEST, req, IFACE_REQUEST, "Remove", &e, &reply, "");
        check_call(r, &e, "Remove");
        sd_bus_message_unref(reply);
}

/* --- statistics ------------------------------------------------------------------------------ */

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

        return (x > y) - (x < y);
}

/* The q-quantile (0..1) of v (sorted in place), nearest rank. */
static uint64_t quantile(uint64_t *v, size_t n, double q) {
        size_t i;

        qsort(v, n, sizeof(*v), cmp_u64);
        i = (size_t) (q * (double) n + 0.999999);
        if (i < 1)
                i = 1;
        if (i > n)
                i = n;
        return v[i - 1];
}

static uint64_t *alloc_samples(size_t n) {
        uint64_t *v = calloc(n ? n : 1, sizeof(uint64_t));

        if (!v)
                die("calloc", ENOMEM);
        return v;
}

/* --- round trips: Ping, AddRequest, Update, Remove, interleaved ------------------------------- */

struct round_trips {
        uint64_t *ping, *add, *update, *remove;
        size_t n;
};

/*
 * One cycle: Ping, AddRequest(min-frequency high), Update(mid), Remove. On a powersave device at
 * its lowest point each of the three changes the frequency: a re-evaluation and a sysfs write.
 */
static void
measure_cycles(sd_bus *bus, const char *dev, size_t n, uint64_t high, uint64_t mid, struct round_trips *rt) {
        rt->ping = alloc_samples(n);
        rt->add = alloc_samples(n);
        rt->update = alloc_samples(n);
        rt->remove = alloc_samples(n);
        rt->n = n;
        for (size_t i = 0; i < n; i++) {
                uint64_t t0, t1, t2, t3, t4;
                char *req;

                t0 = now_ns();
                ping(bus);
                t1 = now_ns();
                req = add_request(bus, dev, "min-frequency", high);
                t2 = now_ns();
                update_request(bus, req, mid);
                t3 = now_ns();
                remove_request(bus, req);
                t4 = now_ns();
                free(req);
                rt->ping[i] = t1 - t0;
                rt->add[i] = t2 - t1;
                rt->update[i] = t3 - t2;
                rt->remove[i] = t4 - t3;
        }
}

static void round_trips_free(struct round_trips *rt) {
        free(rt->ping);
        free(rt->add);
        free(rt->update);
        free(rt->remove);
}

static void print_quantiles(const char *label, uint64_t *v, size_t n) {
        /* microseconds, one decimal */
        printf("%s median_us=%.1f p99_us=%.1f\n", label, quantile(v, n, 0.5) / 1000.0,
               quantile(v, n, 0.99) / 1000.0);
}

/* latency DEVICE N HIGH MID */
static int cmd_latency(int argc, char **argv) {
        struct round_trips warm = {}, rt = {};
        sd_bus *bus;
        char *dev;
        size_t n;
        uint64_t high, mid;

        if (argc != 4)
                return -EINVAL;
        dev = device_path(argv[0]);
        n = strtoul(argv[1], NULL, 10);
        high = strtoull(argv[2], NULL, 10);
        mid = strtoull(argv[3], NULL, 10);
        bus = connect_bus();
        measure_cycles(bus, dev, n / 10 + 1, high, mid, &warm);
        round_trips_free(&warm);
        measure_cycles(bus, dev, n, high, mid, &rt);
        print_quantiles("ping", rt.ping, n);
        print_quantiles("add", rt.add, n);
        print_quantiles("update", rt.update, n);
        print_quantiles("remove", rt.remove, n);
        round_trips_free(&rt);
        sd_bus_flush_close_unref(bus);
        free(dev);
        return 0;
}

/* --- release latency -------------------------------------------------------------------------- */

static bool file_is(int fd, const char *want) {
        char buf[64];
        ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

        if (n < 0)
                return false;
        while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
                n--;
        buf[n] = '\0';
        return strcmp(buf, want) == 0;
}

/* Wait until the file holds `want`, woken by inotify; returns the time it was seen, 0 on timeout. */
static uint64_t wait_file(int ino, int fd, const char *want, uint64_t timeout_ns) {
        uint64_t deadline = now_ns() + timeout_ns;
        char events[4096];

        for (;;) {
                struct pollfd p = { .fd = ino, .events = POLLIN };
                uint64_t now;

                if (file_is(fd, want))
                        return now_ns();
                now = now_ns();
                if (now >= deadline)
                        return 0;
                if (poll(&p, 1, (int) ((deadline - now) / 1000000 + 1)) > 0)
                        (void) read(ino, events, sizeof(events));
        }
}

/* release DEVICE SET_FREQ_FILE N HIGH BASE */
static int cmd_release(int argc, char **argv) {
        const char *file;
        char *dev, high_s[32];
        uint64_t *v, high;
        size_t n;
        int fd, ino;

        if (argc != 5)
                return -EINVAL;
        dev = device_path(argv[0]);
        file = argv[1];
        n = strtoul(argv[2], NULL, 10);
        high = strtoull(argv[3], NULL, 10);
        snprintf(high_s, sizeof(high_s), "%" PRIu64, high);
        v = alloc_samples(n);
        fd = open(file, O_RDONLY | O_CLOEXEC);
        ino = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
        if (fd < 0 || ino < 0 || inotify_add_watch(ino, file, IN_MODIFY | IN_CLOSE_WRITE) < 0)
                die(file, errno);

        for (size_t i = 0; i < n; i++) {
                int pipefd[2];
                pid_t pid;
                char c;
                uint64_t t0, t1;

                if (pipe2(pipefd, O_CLOEXEC) < 0)
                        die("pipe", errno);
                pid = fork();
                if (pid < 0)
                        die("fork", errno);
                if (pid == 0) {
                        sd_bus *bus = connect_bus();
                        char *req = add_request(bus, dev, "min-frequency", high);

                        (void) req;
                        (void) write(pipefd[1], "r", 1);
                        for (;;)
                                pause();
                }
                close(pipefd[1]);
                if (read(pipefd[0], &c, 1) != 1)
                        die("the holder did not add its request", EIO);
                close(pipefd[0]);
                if (wait_file(ino, fd, high_s, 5000000000ull) == 0)
                        die("the request was not applied", ETIMEDOUT);
                t0 = now_ns();
                kill(pid, SIGKILL);
                t1 = wait_file(ino, fd, argv[4], 5000000000ull);
                (void) waitpid(pid, NULL, 0);
                if (t1 == 0)
                        die("the frequency was not written back within 5 s", ETIMEDOUT);
                v[i] = t1 - t0;
        }
        {
                uint64_t med = quantile(v, n, 0.5), p99 = quantile(v, n, 0.99);

                printf("release median_us=%.1f p99_us=%.1f max_us=%.1f\n", med / 1000.0, p99 / 1000.0,
                       v[n - 1] / 1000.0);
        }
        free(v);
        free(dev);
        close(fd);
        close(ino);
        return 0;
}

/* --- filling: many live requests from many connections ---------------------------------------- */

struct fill {
        size_t pending;
        unsigned failed;
};

static int on_fill_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        struct fill *f = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(m);

        if (e) {
                if (f->failed++ == 0)
                        fprintf(stderr, "bench-client: AddRequest failed: %s\n", e->message);
        }
        f->pending--;
        return 0;
}

static void drain(sd_bus *bus, struct fill *f) {
        while (f->pending > 0) {
                int r = sd_bus_process(bus, NULL);
                if (r < 0)
                        die("processing the bus", r);
                if (r == 0 && (r = sd_bus_wait(bus, CALL_TIMEOUT_USEC)) < 0)
                        die("waiting on the bus", r);
        }
        if (f->failed)
                die("filling", EIO);
}

/* Queue `count` AddRequests on one connection, `window` at a time. Values are spread so the live
 * requests are real heap entries, yet leave the aggregate where it was (min below the lowest
 * point, max above the highest). */
static void add_many(sd_bus *bus, char **devs, size_t n_devs, size_t *next_dev, size_t count, uint64_t *seed) {
        struct fill f = {};

        for (size_t i = 0; i < count; i++) {
                const char *dev = devs[(*next_dev)++ % n_devs];
                bool min = (*seed & 1) == 0;
                uint64_t value;
                int r;

                *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
                value = min ? (*seed >> 33) % 100000000 : 2000000000ull + (*seed >> 33) % 1000000000;
                r = sd_bus_call_method_async(
                        bus, NULL, DEST, dev, IFACE_DEVICE, "AddRequest", on_fill_reply, &f, "sta{sv}",
                        min ? "min-frequency" : "max-frequency", value, 0);
                if (r < 0)
                        die("queueing AddRequest", r);
                f.pending++;
                if (f.pending >= 32)
                        drain(bus, &f);
        }
        drain(bus, &f);
}

struct fillers {
        sd_bus **conns;
        size_t *held;
        size_t n, allocated;
        size_t next_dev;
        uint64_t seed;
};

/* Grow to `total` live requests over min(total, max_clients) connections, evenly. */
static void fill_to(struct fillers *fl, char **devs, size_t n_devs, size_t total, size_t max_clients) {
        size_t clients = total < max_clients ? total : max_clients;

        if (clients > fl->allocated) {
                fl->conns = realloc(fl->conns, clients * sizeof(*fl->conns));
                fl->held = realloc(fl->held, clients * sizeof(*fl->held));
                if (!fl->conns || !fl->held)
                        die("realloc", ENOMEM);
                fl->allocated = clients;
        }
        while (fl->n < clients) {
                fl->conns[fl->n] = connect_bus();
                fl->held[fl->n] = 0;
                fl->n++;
        }
        for (size_t c = 0; c < clients; c++) {
                size_t want = total / clients + (c < total % clients);
                if (want > fl->held[c]) {
                        add_many(fl->conns[c], devs, n_devs, &fl->next_dev, want - fl->held[c], &fl->seed);
                        fl->held[c] = want;
                }
        }
}

static char **device_paths(const char *prefix, size_t n) {
        char **v = calloc(n, sizeof(char *));

        if (!v)
                die("calloc", ENOMEM);
        for (size_t i = 0; i < n; i++) {
                char name[128];

                if (n == 1)
                        snprintf(name, sizeof(name), "%s", prefix);
                else
                        snprintf(name, sizeof(name), "%s%zu", prefix, i);
                v[i] = device_path(name);
        }
        return v;
}

static uint64_t sum_median(struct round_trips *rt) {
        return quantile(rt->add, rt->n, 0.5) + quantile(rt->update, rt->n, 0.5) +
                quantile(rt->remove, rt->n, 0.5);
}

/* scale DEVICE N HIGH MID MAX_CLIENTS LEVEL... : per-operation time with LEVEL live requests. */
static int cmd_scale(int argc, char **argv) {
        struct fillers fl = { .seed = 42 };
        char **devs;
        sd_bus *bus;
        size_t n, max_clients;
        uint64_t high, mid;

        if (argc < 6)
                return -EINVAL;
        devs = device_paths(argv[0], 1);
        n = strtoul(argv[1], NULL, 10);
        high = strtoull(argv[2], NULL, 10);
        mid = strtoull(argv[3], NULL, 10);
        max_clients = strtoul(argv[4], NULL, 10);
        bus = connect_bus();
        /* The levels up, then the first one again with fresh fillers: the machine's background load
         * drifts, and the two measurements of the first level bracket the others. */
        for (int i = 5; i <= argc; i++) {
                struct round_trips warm = {}, rt = {};
                size_t level = strtoul(argv[i < argc ? i : 5], NULL, 10);

                if (i == argc) {
                        for (size_t c = 0; c < fl.n; c++)
                                sd_bus_flush_close_unref(fl.conns[c]);
                        fl.n = 0;
                        ping(bus); /* the daemon has seen the fillers leave */
                }
                fill_to(&fl, devs, 1, level, max_clients);
                measure_cycles(bus, devs[0], n / 10 + 1, high, mid, &warm);
                round_trips_free(&warm);
                measure_cycles(bus, devs[0], n, high, mid, &rt);
                printf("scale%s level=%zu clients=%zu per_op_us=%.1f add_us=%.1f update_us=%.1f remove_us=%.1f "
                       "ping_us=%.1f\n",
                       i == argc ? "-again" : "", level, fl.n, sum_median(&rt) / 3000.0,
                       quantile(rt.add, n, 0.5) / 1000.0, quantile(rt.update, n, 0.5) / 1000.0,
                       quantile(rt.remove, n, 0.5) / 1000.0, quantile(rt.ping, n, 0.5) / 1000.0);
                fflush(stdout);
                round_trips_free(&rt);
        }
        for (size_t c = 0; c < fl.n; c++)
                sd_bus_flush_close_unref(fl.conns[c]);
        sd_bus_flush_close_unref(bus);
        return 0;
}

/* hold PREFIX N_DEVICES TOTAL MAX_CLIENTS: fill, say "ready", hold until stdin closes. */
static int cmd_hold(int argc, char **argv) {
        struct fillers fl = { .seed = 7 };
        char **devs, buf[64];
        size_t n_devs;

        if (argc != 4)
                return -EINVAL;
        n_devs = strtoul(argv[1], NULL, 10);
        devs = device_paths(argv[0], n_devs);
        fill_to(&fl, devs, n_devs, strtoul(argv[2], NULL, 10), strtoul(argv[3], NULL, 10));
        printf("ready\n");
        fflush(stdout);
        while (read(STDIN_FILENO, buf, sizeof(buf)) > 0)
                ;
        for (size_t c = 0; c < fl.n; c++)
                sd_bus_flush_close_unref(fl.conns[c]);
        return 0;
}

/* --- add/remove cycles, pipelined ------------------------------------------------------------- */

struct cycles {
        sd_bus *bus;
        const char *dev;
        uint64_t value;
        size_t started, done, target;
        size_t in_flight;
};

static int on_removed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error);

static void start_cycle(struct cycles *c);

static int on_added(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        struct cycles *c = userdata;
        const char *path;
        int r;

        if (sd_bus_message_is_method_error(m, NULL))
                die(sd_bus_message_get_error(m)->message, EIO);
        r = sd_bus_message_read(m, "o", &path);
        if (r < 0)
                die("reading the AddRequest reply", r);
        r = sd_bus_call_method_async(c->bus, NULL, DEST, path, IFACE_REQUEST, "Remove", on_removed, c, "");
        if (r < 0)
                die("queueing Remove", r);
        return 0;
}

static int on_removed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        struct cycles *c = userdata;

        if (sd_bus_message_is_method_error(m, NULL))
                die(sd_bus_message_get_error(m)->message, EIO);
        c->done++;
        c->in_flight--;
        if (c->started < c->target)
                start_cycle(c);
        return 0;
}

static void start_cycle(struct cycles *c) {
        int r = sd_bus_call_method_async(
                c->bus, NULL, DEST, c->dev, IFACE_DEVICE, "AddRequest", on_added, c, "sta{sv}",
                "min-frequency", c->value, 0);

        if (r < 0)
                die("queueing AddRequest", r);
        c->started++;
        c->in_flight++;
}

/* cycles DEVICE COUNT WINDOW VALUE */
static int cmd_cycles(int argc, char **argv) {
        struct cycles c = {};
        char *dev;
        size_t window;
        uint64_t t0;

        if (argc != 4)
                return -EINVAL;
        dev = device_path(argv[0]);
        c.dev = dev;
        c.target = strtoul(argv[1], NULL, 10);
        window = strtoul(argv[2], NULL, 10);
        c.value = strtoull(argv[3], NULL, 10);
        c.bus = connect_bus();
        t0 = now_ns();
        while (c.started < c.target && c.in_flight < window)
                start_cycle(&c);
        while (c.done < c.target) {
                int r = sd_bus_process(c.bus, NULL);
                if (r < 0)
                        die("processing the bus", r);
                if (r == 0 && (r = sd_bus_wait(c.bus, CALL_TIMEOUT_USEC)) < 0)
                        die("waiting on the bus", r);
        }
        printf("cycles count=%zu seconds=%.1f per_cycle_us=%.1f\n", c.done, (now_ns() - t0) / 1e9,
               (now_ns() - t0) / 1000.0 / (double) c.done);
        sd_bus_flush_close_unref(c.bus);
        free(dev);
        return 0;
}

/* --- a flood of large reads, and round trips measured meanwhile ------------------------------ */

struct read_flood {
        sd_bus *bus;
        size_t replies, limited, other_errors, in_flight;
        uint64_t deadline;
};

static void start_read(struct read_flood *f);

static int on_read(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        struct read_flood *f = userdata;

        f->in_flight--;
        if (!sd_bus_message_is_method_error(m, NULL))
                f->replies++;
        else if (sd_bus_message_is_method_error(m, SD_BUS_ERROR_LIMITS_EXCEEDED))
                f->limited++;
        else
                f->other_errors++;
        if (now_ns() < f->deadline)
                start_read(f);
        return 0;
}

static void start_read(struct read_flood *f) {
        int r = sd_bus_call_method_async(
                f->bus, NULL, DEST, "/org/devfreqd/Devfreq1", "org.freedesktop.DBus.ObjectManager",
                "GetManagedObjects", on_read, f, "");

        if (r < 0)
                die("queueing GetManagedObjects", r);
        f->in_flight++;
}

/* read-flood SECONDS IN_FLIGHT: GetManagedObjects, IN_FLIGHT at a time, for SECONDS. */
static int cmd_read_flood(int argc, char **argv) {
        struct read_flood f = {};

        if (argc != 2)
                return -EINVAL;
        f.bus = connect_bus();
        f.deadline = now_ns() + strtoull(argv[0], NULL, 10) * 1000000000u;
        for (size_t i = strtoul(argv[1], NULL, 10); i > 0; i--)
                start_read(&f);
        while (f.in_flight > 0) {
                int r = sd_bus_process(f.bus, NULL);
                if (r < 0)
                        die("processing the bus", r);
                if (r == 0 && (r = sd_bus_wait(f.bus, CALL_TIMEOUT_USEC)) < 0)
                        die("waiting on the bus", r);
        }
        printf("read-flood replies=%zu limited=%zu errors=%zu\n", f.replies, f.limited, f.other_errors);
        sd_bus_flush_close_unref(f.bus);
        return 0;
}

/* pairs DEVICE SECONDS VALUE: AddRequest + Remove, one after the other, for SECONDS; the
 * quantiles of one pair's round trip. */
static int cmd_pairs(int argc, char **argv) {
        size_t n = 0, allocated = 1024;
        uint64_t *v = alloc_samples(allocated), deadline, value;
        char *dev;
        sd_bus *bus;

        if (argc != 3)
                return -EINVAL;
        dev = device_path(argv[0]);
        value = strtoull(argv[2], NULL, 10);
        bus = connect_bus();
        deadline = now_ns() + strtoull(argv[1], NULL, 10) * 1000000000u;
        while (now_ns() < deadline) {
                uint64_t t0 = now_ns();
                char *req = add_request(bus, dev, "min-frequency", value);

                remove_request(bus, req);
                free(req);
                if (n == allocated) {
                        allocated *= 2;
                        v = realloc(v, allocated * sizeof(*v));
                        if (!v)
                                die("realloc", ENOMEM);
                }
                v[n++] = now_ns() - t0;
        }
        printf("pairs n=%zu median_ms=%.2f p99_ms=%.2f max_ms=%.2f\n", n, quantile(v, n, 0.5) / 1e6,
               quantile(v, n, 0.99) / 1e6, quantile(v, n, 1.0) / 1e6);
        free(v);
        free(dev);
        sd_bus_flush_close_unref(bus);
        return 0;
}

/* --- start-up: exec to READY=1 over NOTIFY_SOCKET --------------------------------------------- */

/* startup SOCKET_PATH N -- COMMAND... : median and max time from exec to READY=1 (ms). The daemon
 * is stopped with SIGTERM after each start. */
static int cmd_startup(int argc, char **argv) {
        union {
                struct sockaddr sa;
                struct sockaddr_un un;
        } sa = { .un.sun_family = AF_UNIX };
        uint64_t *v;
        size_t n;
        char **cmd;
        int s;

        if (argc < 4 || strcmp(argv[2], "--") != 0)
                return -EINVAL;
        n = strtoul(argv[1], NULL, 10);
        cmd = argv + 3;
        if (strlen(argv[0]) >= sizeof(sa.un.sun_path))
                return -ENAMETOOLONG;
        strcpy(sa.un.sun_path, argv[0]);
        (void) unlink(argv[0]);
        s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (s < 0 || bind(s, &sa.sa, sizeof(sa.un)) < 0)
                die("binding the notify socket", errno);
        setenv("NOTIFY_SOCKET", argv[0], 1);
        unsetenv("WATCHDOG_USEC");
        unsetenv("WATCHDOG_PID");
        v = alloc_samples(n);

        for (size_t i = 0; i < n; i++) {
                uint64_t t0, t1 = 0;
                pid_t pid;
                int status;

                t0 = now_ns();
                pid = fork();
                if (pid < 0)
                        die("fork", errno);
                if (pid == 0) {
                        execv(cmd[0], cmd);
                        _exit(127);
                }
                while (t1 == 0) {
                        struct pollfd p = { .fd = s, .events = POLLIN };
                        char buf[4096];
                        ssize_t len;

                        if (poll(&p, 1, 30000) <= 0) {
                                kill(pid, SIGKILL);
                                die("no READY=1 within 30 s", ETIMEDOUT);
                        }
                        len = recv(s, buf, sizeof(buf) - 1, 0);
                        if (len < 0)
                                continue;
                        buf[len] = '\0';
                        if (strncmp(buf, "READY=1", 7) == 0 || strstr(buf, "\nREADY=1"))
                                t1 = now_ns();
                }
                v[i] = t1 - t0;
                kill(pid, SIGTERM);
                if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
                        die("the daemon did not exit cleanly", EIO);
                /* Drain STOPPING=1 and friends. */
                for (char buf[4096]; recv(s, buf, sizeof(buf), MSG_DONTWAIT) > 0;)
                        ;
        }
        {
                uint64_t med = quantile(v, n, 0.5);

                printf("startup median_ms=%.1f max_ms=%.1f\n", med / 1e6, v[n - 1] / 1e6);
        }
        close(s);
        (void) unlink(argv[0]);
        free(v);
        return 0;
}

static const struct {
        const char *name;
        int (*run)(int argc, char **argv);
        const char *usage;
} commands[] = {
        { "latency", cmd_latency, "ADDRESS latency DEVICE N HIGH MID" },
        { "release", cmd_release, "ADDRESS release DEVICE SET_FREQ_FILE N HIGH BASE" },
        { "scale", cmd_scale, "ADDRESS scale DEVICE N HIGH MID MAX_CLIENTS LEVEL..." },
        { "hold", cmd_hold, "ADDRESS hold DEVICE_PREFIX N_DEVICES TOTAL MAX_CLIENTS" },
        { "cycles", cmd_cycles, "ADDRESS cycles DEVICE COUNT WINDOW VALUE" },
        { "startup", cmd_startup, "- startup SOCKET N -- COMMAND..." },
        { "read-flood", cmd_read_flood, "ADDRESS read-flood SECONDS IN_FLIGHT" },
        { "pairs", cmd_pairs, "ADDRESS pairs DEVICE SECONDS VALUE" },
};

int main(int argc, char **argv) {
        if (argc >= 3) {
                address = argv[1];
                for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
                        if (strcmp(argv[2], commands[i].name) == 0) {
                                int r = commands[i].run(argc - 3, argv + 3);
                                if (r == -EINVAL)
                                        fprintf(stderr, "usage: bench-client %s\n", commands[i].usage);
                                return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
                        }
        }
        fprintf(stderr, "usage:\n");
        for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
                fprintf(stderr, "  bench-client %s\n", commands[i].usage);
        return EXIT_FAILURE;
}
