/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Load for the tick benchmarks: advances the "busy total" counters of mkroot's gpuK devices in
 * place (pwrite of fixed-width numbers at offset 0, never a rename: the daemon keeps them open).
 *
 *   loadgen steady PERCENT INTERVAL_US ROOT N
 *       every interval, each device gets PERCENT % of a 1000-unit slice: its frequency settles
 *   loadgen alternate HIGH INTERVAL_US ROOT N
 *       each device's slice is idle while its userspace/set_freq holds HIGH and fully busy
 *       otherwise, so simple_ondemand moves it at (nearly) every tick
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct dev {
        int load_fd;
        int freq_fd;
        uint64_t busy, total;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig) {
        stop = 1;
}

static int open_or_die(const char *path, int flags) {
        int fd = open(path, flags | O_CLOEXEC);

        if (fd < 0) {
                fprintf(stderr, "loadgen: %s: %s\n", path, strerror(errno));
                exit(EXIT_FAILURE);
        }
        return fd;
}

static uint64_t read_u64(int fd) {
        char buf[64];
        ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

        if (n <= 0)
                return 0;
        buf[n] = '\0';
        return strtoull(buf, NULL, 10);
}

int main(int argc, char **argv) {
        struct sigaction sa = { .sa_handler = on_signal };
        struct timespec next;
        struct dev *devs;
        uint64_t param, interval_ns;
        size_t n;
        int alternate;

        if (argc != 6 || (strcmp(argv[1], "steady") != 0 && strcmp(argv[1], "alternate") != 0)) {
                fprintf(stderr,
                        "usage: loadgen steady PERCENT INTERVAL_US ROOT N\n"
                        "       loadgen alternate HIGH INTERVAL_US ROOT N\n");
                return EXIT_FAILURE;
        }
        alternate = strcmp(argv[1], "alternate") == 0;
        param = strtoull(argv[2], NULL, 10);
        interval_ns = strtoull(argv[3], NULL, 10) * 1000;
        n = strtoul(argv[5], NULL, 10);
        devs = calloc(n, sizeof(*devs));
        if (!devs)
                return EXIT_FAILURE;
        for (size_t i = 0; i < n; i++) {
                char path[4096];

                snprintf(path, sizeof(path), "%s/sys/devices/platform/gpu%zu/busy", argv[4], i);
                devs[i].load_fd = open_or_die(path, O_WRONLY);
                if (alternate) {
                        snprintf(
                                path, sizeof(path),
                                "%s/sys/devices/platform/gpu%zu/devfreq/gpu%zu/userspace/set_freq", argv[4],
                                i, i);
                        devs[i].freq_fd = open_or_die(path, O_RDONLY);
                }
        }
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);

        clock_gettime(CLOCK_MONOTONIC, &next);
        while (!stop) {
                for (size_t i = 0; i < n; i++) {
                        struct dev *d = &devs[i];
                        char buf[64];
                        int len;

                        if (alternate)
                                d->busy += read_u64(d->freq_fd) == param ? 0 : 1000;
                        else
                                d->busy += param * 10;
                        d->total += 1000;
                        /* Fixed width: every write covers the previous one entirely. */
                        len = snprintf(buf, sizeof(buf), "%019" PRIu64 " %019" PRIu64 "\n", d->busy, d->total);
                        if (pwrite(d->load_fd, buf, (size_t) len, 0) != len) {
                                fprintf(stderr, "loadgen: write: %s\n", strerror(errno));
                                return EXIT_FAILURE;
                        }
                }
                next.tv_nsec += (long) interval_ns;
                while (next.tv_nsec >= 1000000000) {
                        next.tv_nsec -= 1000000000;
                        next.tv_sec++;
                }
                while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR && !stop)
                        ;
        }
        return EXIT_SUCCESS;
}
