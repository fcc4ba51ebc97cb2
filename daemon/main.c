/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* devfreqd: command line, the event loop, signals and sd_notify; wires the manager to the bus. */

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>

#include "bus.h"
#include "hotplug.h"
#include "logging.h"
#include "macro.h"
#include "manager.h"
#include "originals.h"

#define DEFAULT_RUNTIME_DIR "/run/devfreqd"
#define DEFAULT_STATE_DIR "/var/lib/devfreqd"

struct args {
        struct manager_options o;
        const char *bus;
        bool check_config;
        bool restore;
};

struct context {
        sd_event *event;
        struct manager *manager;
        struct bus *bus;
        sd_device_monitor *hotplug;
};

static void help(void) {
        printf("Usage: devfreqd [OPTION...]\n\n"
               "Govern devfreq devices and cpufreq policies, and take QoS requests over D-Bus.\n\n"
               "  --config FILE       configuration file (default %s/devfreqd.conf)\n"
               "  --config-dir DIR    drop-in directory (default %s/devfreqd.conf.d)\n"
               "  --root DIR          resolve every sysfs and procfs path under DIR (default /)\n"
               "  --bus BUS           system, session, or a D-Bus address (default system)\n"
               "  --state-dir DIR     persisted choices (default %s)\n"
               "  --runtime-dir DIR   original device settings (default %s)\n"
               "  --dry-run           write nothing; log what would be written\n"
               "  --log-level LEVEL   emerg, alert, crit, err, warning, notice, info, debug\n"
               "  --check-config      validate the configuration, print the devices, exit\n"
               "  --restore           write back recorded original settings and exit\n"
               "  --version           show the version\n"
               "  -h, --help          show this help\n\n"
               "See devfreqd(8) and devfreqd.conf(5).\n",
               SYSCONFDIR, SYSCONFDIR, DEFAULT_STATE_DIR, DEFAULT_RUNTIME_DIR);
}

/* The long options (getopt_long()'s values above any character). */
enum {
        ARG_CONFIG = 0x100,
        ARG_CONFIG_DIR,
        ARG_ROOT,
        ARG_BUS,
        ARG_STATE_DIR,
        ARG_RUNTIME_DIR,
        ARG_DRY_RUN,
        ARG_LOG_LEVEL,
        ARG_CHECK_CONFIG,
        ARG_RESTORE,
        ARG_VERSION
};
static const struct option options[] = {
        { "config", required_argument, NULL, ARG_CONFIG },
        { "config-dir", required_argument, NULL, ARG_CONFIG_DIR },
        { "root", required_argument, NULL, ARG_ROOT },
        { "bus", required_argument, NULL, ARG_BUS },
        { "state-dir", required_argument, NULL, ARG_STATE_DIR },
        { "runtime-dir", required_argument, NULL, ARG_RUNTIME_DIR },
        { "dry-run", no_argument, NULL, ARG_DRY_RUN },
        { "log-level", required_argument, NULL, ARG_LOG_LEVEL },
        { "check-config", no_argument, NULL, ARG_CHECK_CONFIG },
        { "restore", no_argument, NULL, ARG_RESTORE },
        { "version", no_argument, NULL, ARG_VERSION },
        { "help", no_argument, NULL, 'h' },
        {},
};

/* Returns 1 to run, 0 to exit successfully, negative on bad usage. */
static int parse_args(int argc, char *argv[], struct args *a) {
        int c, level;

        opterr = 0;
        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0) {
                switch (c) {
                case ARG_CONFIG:
                        a->o.config_file = optarg;
                        break;
                case ARG_CONFIG_DIR:
                        a->o.config_dir = optarg;
                        break;
                case ARG_ROOT:
                        a->o.root = optarg;
                        break;
                case ARG_BUS:
                        a->bus = optarg;
                        break;
                case ARG_STATE_DIR:
                        a->o.state_dir = optarg;
                        break;
                case ARG_RUNTIME_DIR:
                        a->o.runtime_dir = optarg;
                        break;
                case ARG_DRY_RUN:
                        a->o.dry_run = true;
                        break;
                case ARG_LOG_LEVEL:
                        level = log_level_from_string(optarg);
                        if (level < 0)
                                return log_error_errno(
                                        EINVAL, "--log-level: unknown level '%s' (emerg ... debug)", optarg);
                        log_set_max_level(level);
                        break;
                case ARG_CHECK_CONFIG:
                        a->check_config = true;
                        break;
                case ARG_RESTORE:
                        a->restore = true;
                        break;
                case ARG_VERSION:
                        printf("devfreqd %s\n", PACKAGE_VERSION);
                        return 0;
                case 'h':
                        help();
                        return 0;
                default:
                        return log_error_errno(
                                EINVAL, "%s: unknown option or missing value (see --help)", argv[optind - 1]);
                }
        }
        if (optind < argc)
                return log_error_errno(EINVAL, "unexpected argument '%s' (see --help)", argv[optind]);
        if (a->check_config && a->restore)
                return log_error_errno(EINVAL, "--check-config and --restore do not go together");
        return 1;
}

static void raise_nofile(void) {
        struct rlimit rl;

        /* One open file per polled attribute: many devices need more than the soft default. */
        if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= rl.rlim_max)
                return;
        rl.rlim_cur = rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
                log_debug_errno(errno, "Cannot raise the file descriptor limit: %m");
}

static void notify_status(struct context *ctx, const char *prefix) {
        _cleanup_free_ char *status = manager_status(ctx->manager);

        (void) sd_notifyf(false, "%sSTATUS=%s", prefix, strempty(status));
}

static int on_exit_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        struct context *ctx = userdata;

        log_info("Received %s, restoring and exiting", strsignal((int) si->ssi_signo));
        return sd_event_exit(ctx->event, EXIT_SUCCESS);
}

static int on_sighup(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        struct context *ctx = userdata;

        (void) sd_notify(false, "RELOADING=1\nSTATUS=Reloading the configuration");
        (void) manager_reload(ctx->manager, NULL);
        notify_status(ctx, "READY=1\n");
        return 0;
}

static void on_bus_lost(struct bus *b, void *userdata) {
        struct context *ctx = userdata;

        (void) sd_event_exit(ctx->event, EXIT_FAILURE);
}

/* power-profiles-daemon's profile at start, read before any device is written (DESIGN's order). */
static int read_desktop_profile(void *userdata, char **ret) {
        return bus_read_desktop_profile(userdata, ret);
}

/* The event loop with the signals it handles (blocked first) and the watchdog. */
static int setup_event(struct context *ctx) {
        sigset_t mask;
        int r;

        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGHUP);
        if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
                return log_error_errno(errno, "Cannot block signals: %m");
        r = sd_event_default(&ctx->event);
        if (r < 0)
                return log_error_errno(r, "Cannot create the event loop: %m");
        if ((r = sd_event_add_signal(ctx->event, NULL, SIGTERM, on_exit_signal, ctx)) < 0 ||
            (r = sd_event_add_signal(ctx->event, NULL, SIGINT, on_exit_signal, ctx)) < 0 ||
            (r = sd_event_add_signal(ctx->event, NULL, SIGHUP, on_sighup, ctx)) < 0)
                return log_error_errno(r, "Cannot watch signals: %m");
        (void) sd_event_set_watchdog(ctx->event, true);
        return 0;
}

static int lock_runtime_dir(const char *dir, int *ret_fd) {
        pid_t pid;
        int r;

        r = originals_lock(dir, ret_fd, &pid);
        if (r == -EBUSY && pid > 0)
                return log_error_errno(r, "Another devfreqd (pid %ld) uses %s; stop it first", (long) pid, dir);
        if (r == -EBUSY)
                return log_error_errno(r, "Another devfreqd uses %s; stop it first", dir);
        if (r == -EROFS) {
                /* No originals can be saved there either: nothing will be written to a node. */
                log_warning_errno(r, "Cannot lock %s/lock: %m; going on unlocked", dir);
                return 0;
        }
        if (r < 0)
                return log_error_errno(r, "Cannot lock %s/lock: %m", dir);
        return 0;
}

static int run(int argc, char *argv[]) {
        struct args a = {
                .o = {
                        .config_file = SYSCONFDIR "/devfreqd.conf",
                        .config_dir = SYSCONFDIR "/devfreqd.conf.d",
                        .root = "/",
                        .runtime_dir = DEFAULT_RUNTIME_DIR,
                        .state_dir = DEFAULT_STATE_DIR,
                },
                .bus = "system",
        };
        struct context ctx = {};
        _cleanup_close_ int lock = -EBADF;
        int r, code;

        r = parse_args(argc, argv, &a);
        if (r <= 0)
                return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
        if (a.check_config)
                return manager_check_config(&a.o, stdout) < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
        /* Before anything is read or written: one devfreqd (or --restore) at a time owns the nodes
         * and the originals of a runtime directory. A dry run writes neither. */
        if (!a.o.dry_run && lock_runtime_dir(a.o.runtime_dir, &lock) < 0)
                return EXIT_FAILURE;
        if (a.restore)
                return manager_restore_originals_file(&a.o) < 0 ? EXIT_FAILURE : EXIT_SUCCESS;

        raise_nofile();
        r = setup_event(&ctx);
        if (r < 0) {
                code = EXIT_FAILURE;
                goto finish;
        }

        a.o.desktop_profile = read_desktop_profile;
        a.o.desktop_profile_userdata = (void *) a.bus;
        r = manager_new(ctx.event, &a.o, &ctx.manager);
        if (r < 0) {
                code = EXIT_FAILURE;
                goto finish;
        }
        r = manager_start(ctx.manager);
        if (r < 0) {
                code = EXIT_FAILURE;
                goto finish;
        }
        r = bus_new(ctx.event, ctx.manager, a.bus, on_bus_lost, &ctx, &ctx.bus);
        if (r < 0) {
                code = EXIT_FAILURE;
                goto finish;
        }

        (void) hotplug_start(ctx.event, ctx.manager, &ctx.hotplug);

        notify_status(&ctx, "READY=1\n");
        log_info("devfreqd %s running%s", PACKAGE_VERSION, a.o.dry_run ? " (dry run: writing nothing)" : "");
        r = sd_event_loop(ctx.event);
        code = r < 0 ? EXIT_FAILURE : r;
        (void) sd_notify(false, "STOPPING=1\nSTATUS=Restoring original settings");

finish:
        sd_device_monitor_unref(ctx.hotplug);
        if (ctx.manager && manager_restore_all(ctx.manager) < 0)
                code = EXIT_FAILURE; /* systemd shows the stop failed; the records wait for --restore */
        bus_free(ctx.bus);
        manager_free(ctx.manager);
        sd_event_unref(ctx.event);
        return code;
}

int main(int argc, char *argv[]) {
        return run(argc, argv);
}
