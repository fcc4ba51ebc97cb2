/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Authorization: root; polkit asked asynchronously when it has an owner (the method is
 * dispatched again when polkit answers); else the groups of the caller's user. */

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bus-internal.h"
#include "logging.h"

#define POLKIT_NAME "org.freedesktop.PolicyKit1"

struct auth_check {
        struct bus *bus;
        sd_bus_message *request; /* the method call, dispatched again once decided */
        struct client *client;   /* the caller's record, held (n_pending) until the check goes */
        char *sender;
        uint32_t uid; /* the caller's, for its user's share of the pending checks */
        char *action;
        sd_bus_slot *slot; /* the CheckAuthorization call; unref cancels it */
        int result;        /* 0 pending, 1 allowed, negative denied */
        bool dispatched;   /* decided, and the method has run again since */
        bool left;         /* decided, but the caller left before its method ran again */
        char *message;
        struct auth_check *prev, *next;
};

static void check_free(struct auth_check *c) {
        struct bus *b = c->bus;
        struct client *client = c->client;

        if (c->prev)
                c->prev->next = c->next;
        else
                b->checks = c->next;
        if (c->next)
                c->next->prev = c->prev;
        b->n_checks--;
        sd_bus_slot_unref(c->slot);
        sd_bus_message_unref(c->request);
        free(c->sender);
        free(c->action);
        free(c->message);
        free(c);
        if (client) {
                client->n_pending--;
                client_release_if_unused(client);
        }
}

static int on_polkit_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        struct auth_check *c = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(reply);
        int authorized = 0, challenge = 0, r;

        c->slot = sd_bus_slot_unref(c->slot);
        if (e) {
                log_warning("polkit could not decide %s for %s: %s", c->action, c->sender, e->message);
                c->result = -EACCES;
                c->message = strdup("polkit could not decide");
        } else {
                r = sd_bus_message_enter_container(reply, 'r', "bba{ss}");
                if (r >= 0)
                        r = sd_bus_message_read(reply, "bb", &authorized, &challenge);
                if (r < 0) {
                        log_warning_errno(r, "Malformed answer from polkit: %m");
                        authorized = 0;
                }
                c->result = authorized ? 1 : -EACCES;
                if (!authorized && challenge)
                        c->message = strdup("interactive authentication is required");
        }
        log_debug("polkit: %s for %s: %s", c->action, c->sender, c->result > 0 ? "yes" : "no");
        /* Run the method again; bus_authorize() then finds this answer. */
        r = sd_bus_enqueue_for_read(c->bus->bus, c->request);
        if (r < 0) {
                log_error_errno(r, "Cannot dispatch %s again: %m", sd_bus_message_get_member(c->request));
                check_free(c);
        }
        return 0;
}

/* A decided check is consumed by bus_authorize() when its method runs again. A method may fail
 * before it asks (its device, point or tunable went while polkit was thinking): its check is
 * dropped at the next incoming message, instead of staying and counting as pending forever. */
static int on_incoming(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        struct bus *b = userdata;

        for (struct auth_check *c = b->checks, *next; c; c = next) {
                next = c->next;
                if (c->dispatched)
                        check_free(c);
                else if (c->result != 0 && c->request == m)
                        c->dispatched = true;
        }
        return 0;
}

static size_t user_checks(const struct bus *b, uint32_t uid) {
        size_t n = 0;

        for (const struct auth_check *c = b->checks; c; c = c->next)
                n += c->uid == uid && c->result == 0;
        return n;
}

/* A slow polkit must not let one user's calls fill the pending checks that every user shares. */
static int check_room(struct bus *b, uint32_t uid, sd_bus_error *error) {
        uint32_t per_user = b->manager->config->max_pending_checks_per_user;

        if (b->n_checks >= PENDING_CHECKS_MAX)
                return sd_bus_error_setf(
                        error, SD_BUS_ERROR_ACCESS_DENIED,
                        "Too many authorization checks are pending (%d); try again", PENDING_CHECKS_MAX);
        if (user_checks(b, uid) >= per_user)
                return sd_bus_error_setf(
                        error, SD_BUS_ERROR_ACCESS_DENIED,
                        "uid %" PRIu32 " has %" PRIu32 " authorization checks pending, the most allowed "
                        "(max-pending-checks-per-user); try again",
                        uid, per_user);
        return 0;
}

static int
start_polkit_check(struct bus *b, sd_bus_message *m, uint32_t uid, const char *action, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *call = NULL;
        const char *sender = message_sender(m);
        struct client *client;
        struct auth_check *c;
        uint32_t flags = sd_bus_message_get_allow_interactive_authorization(m) ? 1 : 0;
        int r;

        r = check_room(b, uid, error);
        if (r < 0)
                return r;
        r = client_acquire(b, sender, &client);
        if (r < 0)
                return sd_bus_error_set_errnof(error, r, "Cannot follow %s on the bus: %m", sender);
        c = calloc(1, sizeof(*c));
        if (!c) {
                client_release_if_unused(client);
                return -ENOMEM;
        }
        c->bus = b;
        c->uid = uid;
        c->request = sd_bus_message_ref(m);
        c->sender = strdup(sender);
        c->action = strdup(action);
        c->client = client;
        client->n_pending++;
        c->next = b->checks;
        if (b->checks)
                b->checks->prev = c;
        b->checks = c;
        b->n_checks++;
        if (!c->sender || !c->action) {
                check_free(c);
                return -ENOMEM;
        }
        r = sd_bus_message_new_method_call(
                b->bus, &call, POLKIT_NAME, "/org/freedesktop/PolicyKit1/Authority",
                "org.freedesktop.PolicyKit1.Authority", "CheckAuthorization");
        if (r >= 0)
                r = sd_bus_message_append(
                        call, "(sa{sv})sa{ss}us", "system-bus-name", 1, "name", "s", sender, action, 0, flags,
                        "");
        /* Never start polkit for this: it is asked only when it runs already. */
        if (r >= 0)
                r = sd_bus_message_set_auto_start(call, 0);
        if (r >= 0)
                r = sd_bus_call_async(b->bus, &c->slot, call, on_polkit_reply, c, 0);
        if (r < 0) {
                check_free(c);
                return sd_bus_error_setf(
                        error, SD_BUS_ERROR_ACCESS_DENIED, "Cannot ask polkit: %s", strerror(-r));
        }
        log_debug("polkit: asking for %s on behalf of %s", action, sender);
        return 0;
}

/* getgrnam_r()/getpwuid_r() with a buffer grown until the entry fits (a group line listing many
 * members is longer than any fixed buffer): 1 found, 0 not found, negative errno. */
#define NSS_BUFFER_MAX (16u * 1024 * 1024)

static int lookup_group(const char *name, struct group *grp, char **buf) {
        for (size_t size = 4096; size <= NSS_BUFFER_MAX; size *= 2) {
                struct group *result = NULL;
                char *nb = realloc(*buf, size);
                int r;

                if (!nb)
                        return -ENOMEM;
                *buf = nb;
                r = getgrnam_r(name, grp, *buf, size, &result);
                if (r != ERANGE)
                        return r > 0 ? -r : !!result;
        }
        return -ERANGE;
}

static int lookup_user(uid_t uid, struct passwd *pw, char **buf) {
        for (size_t size = 4096; size <= NSS_BUFFER_MAX; size *= 2) {
                struct passwd *result = NULL;
                char *nb = realloc(*buf, size);
                int r;

                if (!nb)
                        return -ENOMEM;
                *buf = nb;
                r = getpwuid_r(uid, pw, *buf, size, &result);
                if (r != ERANGE)
                        return r > 0 ? -r : !!result;
        }
        return -ERANGE;
}

static bool in_groups(const gid_t *groups, int n, char **names, size_t n_names) {
        _cleanup_free_ char *buf = NULL;

        for (size_t i = 0; i < n_names; i++) {
                struct group grp;

                if (lookup_group(names[i], &grp, &buf) <= 0)
                        continue;
                for (int j = 0; j < n; j++)
                        if (groups[j] == grp.gr_gid)
                                return true;
        }
        return false;
}

/* Every group of the user, however many: getgrouplist() says how many when the array is short. */
static int user_groups(const struct passwd *pw, gid_t **ret, int *ret_n) {
        _cleanup_free_ gid_t *groups = NULL;
        int n = 64;

        for (int tries = 0; tries < 8; tries++) {
                int want = n;
                gid_t *ng = reallocarray(groups, (size_t) want, sizeof(gid_t));

                if (!ng)
                        return -ENOMEM;
                groups = ng;
                if (getgrouplist(pw->pw_name, pw->pw_gid, groups, &n) >= 0) {
                        *ret = TAKE_PTR(groups);
                        *ret_n = n;
                        return 0;
                }
                if (n <= want)
                        n = want * 2;
        }
        return -E2BIG;
}

/* Without polkit: the groups of the euid's user in the group database, as polkit's unix-group sees them. */
static int authorize_by_groups(struct bus *b, uint32_t euid, const char *action, sd_bus_error *error) {
        const struct df_config *c = b->manager->config;
        _cleanup_free_ char *buf = NULL;
        _cleanup_free_ gid_t *groups = NULL;
        struct passwd pw;
        int n = 0;

        if (lookup_user(euid, &pw, &buf) > 0 && user_groups(&pw, &groups, &n) >= 0) {
                if (in_groups(groups, n, c->allow_groups, c->n_allow_groups))
                        return 1;
                if (streq(action, ACTION_REQUEST) &&
                    in_groups(groups, n, c->request_groups, c->n_request_groups))
                        return 1;
                if (streq(action, ACTION_SET_PROFILE) &&
                    in_groups(groups, n, c->profile_groups, c->n_profile_groups))
                        return 1;
        }
        return sd_bus_error_setf(
                error, SD_BUS_ERROR_ACCESS_DENIED,
                "uid %" PRIu32 " may not do this (%s): polkit is not running and the user is in none "
                "of the groups allowed by the configuration",
                euid, action);
}

int bus_authorize(struct bus *b, sd_bus_message *m, const char *action, sd_bus_error *error) {
        uint32_t euid, pid;
        int r;

        for (struct auth_check *c = b->checks; c; c = c->next) {
                if (c->request != m || c->result == 0)
                        continue;
                r = c->left ? -ECONNRESET : c->result;
                if (c->left)
                        /* Nobody reads this; the method must not run for a caller that is gone. */
                        sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED, "The caller left the bus");
                else if (r < 0)
                        sd_bus_error_setf(
                                error, SD_BUS_ERROR_ACCESS_DENIED, "polkit denied %s%s%s", action,
                                c->message ? ": " : "", strempty(c->message));
                check_free(c);
                return r > 0 ? 1 : -EACCES;
        }

        r = sender_creds(b, m, &euid, &pid);
        if (r < 0)
                return sd_bus_error_setf(
                        error, SD_BUS_ERROR_ACCESS_DENIED, "Cannot identify the caller: %s", strerror(-r));
        if (euid == 0)
                return 1;
        if (name_watch_owner(b->polkit))
                return start_polkit_check(b, m, euid, action, error);
        return authorize_by_groups(b, euid, action, error);
}

void auth_checks_cancel_client(struct client *client) {
        struct auth_check *c = client->bus->checks, *next;

        for (; c; c = next) {
                next = c->next;
                if (c->client != client)
                        continue;
                if (c->result == 0) {
                        log_debug("%s left; cancelling its pending check for %s", c->sender, c->action);
                        check_free(c);
                        continue;
                }
                /* Decided: its method is queued to run again, and must find this check to fail
                 * rather than ask anew for a caller that is gone (a fresh record, a request nobody
                 * owns). The leaving client's record no longer counts it. */
                c->left = true;
                c->client = NULL;
                client->n_pending--;
        }
}

void auth_checks_free_all(struct bus *b) {
        while (b->checks)
                check_free(b->checks);
}

static void on_polkit_owner_changed(struct name_watch *w, const char *owner, void *userdata) {
        log_info("polkit %s", owner ? "is on the bus: asking it from now on" : "left the bus: using groups");
}

int polkit_watch_start(struct bus *b) {
        int r;

        r = sd_bus_add_filter(b->bus, NULL, on_incoming, b);
        if (r < 0)
                return r;
        r = name_watch_new(b, POLKIT_NAME, on_polkit_owner_changed, b, &b->polkit);
        if (r < 0)
                return r;
        log_debug("polkit is %s", name_watch_owner(b->polkit) ? "running" : "not running; authorizing by groups");
        return 0;
}
