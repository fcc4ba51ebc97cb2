/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* devfreqctl request and hold: add a QoS request and keep the connection that owns it open,
 * until a signal, the lease's end, or the end of a command run meanwhile. */

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <systemd/sd-event.h>
#include <unistd.h>

#include "devfreqctl.h"
#include "units.h"

struct holder {
        struct ctl *c;
        sd_event *event;
        const char *device; /* as the user named it */
        char *path;         /* the request object */
        pid_t child;        /* hold: the command */
        uint64_t lease_end; /* CLOCK_BOOTTIME µs from which the lease may have run out, 0: no lease */
        bool gone;          /* the request is known to be gone */
        sigset_t old_mask;  /* the signal mask before the loop's: hold's command gets it back */
};

static void holder_done(struct holder *h) {
        free(h->path);
        sd_event_unref(h->event);
}

/* Explicitly, so the request is gone when we exit (the bus would drop it a moment later). */
static void remove_request(struct holder *h) {
        if (!h->path || h->gone)
                return;
        (void) sd_bus_call_method(h->c->bus, BUS_NAME, h->path, IFACE_REQUEST, "Remove", NULL, NULL, NULL);
        h->gone = true;
}

/* `ended`: removed by the daemon (the lease ran out, or someone removed it). */
static void request_gone(struct holder *h, const char *why, bool ended) {
        if (h->gone)
                return;
        h->gone = true;
        if (h->child > 0) {
                /* hold: the command runs on, without its request. */
                fprintf(stderr, "%s: %s: %s; the command runs on without it\n", program_invocation_short_name,
                        h->device, why);
                return;
        }
        /* The lease ran out: done. Removed before it could have (by root, a reload, the device's
         * going), it is an end like any other. */
        if (ended && h->lease_end > 0 && df_now_usec(CLOCK_BOOTTIME) >= h->lease_end)
                (void) sd_event_exit(h->event, EXIT_SUCCESS);
        else
                (void) sd_event_exit(h->event, ctl_fail(h->device, "%s", why));
}

static int on_interfaces_removed(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        struct holder *h = userdata;
        const char *path;

        if (sd_bus_message_read_basic(m, 'o', &path) > 0 && h->path && streq(path, h->path))
                request_gone(h, "the request ended", true);
        return 0;
}

static int on_name_owner_changed(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        const char *name, *old, *new;

        if (sd_bus_message_read(m, "sss", &name, &old, &new) > 0 && streq(name, BUS_NAME) && !*new)
                request_gone(userdata, "devfreqd left the bus, and the request with it", false);
        return 0;
}

static int on_disconnected(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        request_gone(userdata, "lost the connection to the bus, and the request with it", false);
        return 0;
}

/* Watch for the request's end before it exists: a short lease could end before a later match. */
static int watch(struct holder *h) {
        sd_bus *bus = h->c->bus;
        int r;

        r = sd_bus_match_signal(
                bus, NULL, BUS_NAME, OBJECT_ROOT, IFACE_OBJECT_MANAGER, "InterfacesRemoved",
                on_interfaces_removed, h);
        if (r >= 0)
                r = ctl_watch_daemon(h->c, on_name_owner_changed, on_disconnected, h);
        if (r < 0)
                return ctl_fail(NULL, "cannot watch the bus: %s", strerror(-r)), -1;
        return 0;
}

static int add_request(struct holder *h) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        _cleanup_free_ char *device = NULL;
        struct ctl *c = h->c;
        const char *path;
        int r;

        if (ctl_device_path(c, h->device, &device) < 0 || watch(h) < 0)
                return EXIT_DAEMON;

        r = sd_bus_message_new_method_call(c->bus, &m, BUS_NAME, device, IFACE_DEVICE, "AddRequest");
        if (r >= 0)
                r = sd_bus_message_append(m, "st", c->type, c->value);
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "{sv}");
        if (r >= 0 && c->reason)
                r = sd_bus_message_append(m, "{sv}", "reason", "s", c->reason);
        if (r >= 0 && c->timeout_ms > 0)
                r = sd_bus_message_append(m, "{sv}", "timeout-ms", "t", c->timeout_ms);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        /* Taken before the call: the daemon's lease starts later, and ends no sooner than this. */
        if (c->timeout_ms > 0) {
                uint64_t now = df_now_usec(CLOCK_BOOTTIME);
                h->lease_end = c->timeout_ms > (UINT64_MAX - now) / 1000 ? UINT64_MAX :
                                                                           now + c->timeout_ms * 1000;
        }
        if (r >= 0)
                r = sd_bus_call(c->bus, m, 0, &error, &reply);
        if (r >= 0)
                r = sd_bus_message_read_basic(reply, 'o', &path);
        if (r < 0)
                return ctl_bus_error(h->device, &error, r);
        h->path = strdup(path);
        if (!h->path)
                return ctl_fail(NULL, "out of memory");
        return EXIT_SUCCESS;
}

static int setup_loop(struct holder *h, const int *signals) {
        sigset_t mask;
        int r;

        sigemptyset(&mask);
        for (const int *s = signals; *s; s++)
                sigaddset(&mask, *s);
        /* sd-event reads signals from a signalfd: they must be blocked. */
        if (sigprocmask(SIG_BLOCK, &mask, &h->old_mask) < 0)
                return ctl_fail(NULL, "cannot block signals: %s", strerror(errno)), -1;
        r = sd_event_new(&h->event);
        if (r >= 0)
                r = sd_bus_attach_event(h->c->bus, h->event, SD_EVENT_PRIORITY_NORMAL);
        if (r < 0)
                return ctl_fail(NULL, "cannot set up the event loop: %s", strerror(-r)), -1;
        return 0;
}

/* Block `signals` for the loop, set it up and add the request: the exit status. */
static int start_holding(struct holder *h, const int *signals) {
        if (setup_loop(h, signals) < 0)
                return EXIT_DAEMON;
        return add_request(h);
}

/* The loop, until a handler ends it with the exit status; the request goes if the loop fails. */
static int run_loop(struct holder *h) {
        int r;

        r = sd_event_loop(h->event);
        if (r < 0) {
                remove_request(h);
                return ctl_fail(NULL, "the event loop failed: %s", strerror(-r));
        }
        return r;
}

/* --- request ------------------------------------------------------------------------------------ */

static int on_stop_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        struct holder *h = userdata;

        remove_request(h);
        return sd_event_exit(h->event, EXIT_SUCCESS);
}

int cmd_request(struct ctl *c) {
        static const int signals[] = { SIGINT, SIGTERM, SIGHUP, 0 };
        _cleanup_(holder_done) struct holder h = { .c = c, .device = c->args[0] };
        int r, status;

        status = start_holding(&h, signals);
        if (status != EXIT_SUCCESS)
                return status;
        for (const int *s = signals; *s; s++) {
                r = sd_event_add_signal(h.event, NULL, *s, on_stop_signal, &h);
                if (r < 0) {
                        remove_request(&h);
                        return ctl_fail(NULL, "cannot watch for signals: %s", strerror(-r));
                }
        }
        printf("%s\n", h.path);
        fflush(stdout);

        return run_loop(&h);
}

/* --- hold --------------------------------------------------------------------------------------- */

static int on_child(sd_event_source *s, const siginfo_t *si, void *userdata) {
        struct holder *h = userdata;
        int status;

        if (si->si_code == CLD_EXITED)
                status = si->si_status;
        else
                status = 128 + si->si_status; /* killed or dumped core: as the shell reports it */
        h->child = 0;
        remove_request(h);
        return sd_event_exit(h->event, status);
}

/* A signal sent to us alone goes on to the command; one from the terminal reached it already. */
static int on_forward_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        struct holder *h = userdata;

        if (si->ssi_code != SI_KERNEL && h->child > 0)
                (void) kill(h->child, (int) si->ssi_signo);
        return 0;
}

static pid_t spawn(char **command, const sigset_t *mask) {
        pid_t pid = fork();

        if (pid != 0)
                return pid;
        /* The bus and the loop's descriptors are close-on-exec; only the mask is ours to undo. */
        (void) sigprocmask(SIG_SETMASK, mask, NULL);
        execvp(command[0], command);
        fprintf(stderr, "%s: cannot run %s: %s\n", program_invocation_short_name, command[0], strerror(errno));
        _exit(errno == ENOENT ? 127 : 126);
}

int cmd_hold(struct ctl *c) {
        static const int signals[] = { SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT, 0 };
        _cleanup_(holder_done) struct holder h = { .c = c, .device = c->args[0] };
        int r, status;

        status = start_holding(&h, signals);
        if (status != EXIT_SUCCESS)
                return status;

        h.child = spawn(c->command, &h.old_mask);
        if (h.child < 0) {
                remove_request(&h);
                return ctl_fail(NULL, "cannot start %s: %s", c->command[0], strerror(errno));
        }
        r = sd_event_add_child(h.event, NULL, h.child, WEXITED, on_child, &h);
        for (const int *s = signals + 1; r >= 0 && *s; s++)
                r = sd_event_add_signal(h.event, NULL, *s, on_forward_signal, &h);
        if (r < 0) {
                /* Without a loop we can still wait, keeping the request until the command ends. */
                int wstatus = 0;
                fprintf(stderr, "%s: cannot watch %s: %s\n", program_invocation_short_name, c->command[0],
                        strerror(-r));
                while (waitpid(h.child, &wstatus, 0) < 0 && errno == EINTR)
                        ;
                remove_request(&h);
                return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
        }

        return run_loop(&h);
}
