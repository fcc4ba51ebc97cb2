/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The device manager: turns configuration into devices, drives them from sd-event timers, keeps
 * originals and persisted choices, and reports changes through a listener.
 *
 * The bus layer (dbus/) reads struct manager and struct manager_device directly, as systemd's bus
 * files read Manager and Unit, and keeps its bookkeeping of a device in the device (`bus`). It
 * changes a device only through the manager_device_*() operations below, which evaluate the device
 * again and report what changed.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <systemd/sd-event.h>

#include "blame.h"
#include "config.h"
#include "device.h"
#include "load.h"
#include "node.h"
#include "originals.h"
#include "profile.h"
#include "spec.h"
#include "state.h"
#include "sysfs.h"
#include "thermal-zone.h"
#include "thermal.h"
#include "units.h"

struct manager;
struct manager_device;
struct request;

/* A thermal rule's time as the cap in force on a device. */
struct thermal_blame {
        char *rule;
        uint64_t cap; /* Hz, the last one it set */
        uint64_t bound_usec;
        uint64_t since; /* CLOCK_MONOTONIC µs, while capping */
        bool capping;
};
/* Its binding time up to now. */
uint64_t manager_blame_thermal_time(const struct thermal_blame *t);

/* Published properties of a device that changed (for PropertiesChanged). */
enum {
        DEVICE_CHANGED_GOVERNOR = 1u << 0, /* Governor, AvailableGovernors, Tunables, PollingInterval */
        DEVICE_CHANGED_MODE = 1u << 1,
        DEVICE_CHANGED_MIN_FREQUENCY = 1u << 2,
        DEVICE_CHANGED_AVAILABLE_FREQUENCIES = 1u << 3,
        DEVICE_CHANGED_OPERATING_POINTS = 1u << 4,
        DEVICE_CHANGED_POLLING_INTERVAL = 1u << 5,
        DEVICE_CHANGED_QOS_MIN_FREQUENCY = 1u << 6,
        DEVICE_CHANGED_TUNABLES = 1u << 7,
        DEVICE_CHANGED_LAST_ERROR = 1u << 8,
        DEVICE_CHANGED_CURRENT_FREQUENCY = 1u << 9, /* govern mode only */
        DEVICE_CHANGED_AVAILABLE_GOVERNORS = 1u << 10,
        DEVICE_CHANGED_MAX_FREQUENCY = 1u << 11,
        DEVICE_CHANGED_QOS_MAX_FREQUENCY = 1u << 12,
        DEVICE_CHANGED_QOS_LATENCY = 1u << 13,
        DEVICE_CHANGED_REQUESTS = 1u << 14, /* the bus layer's request objects on the device */
        DEVICE_CHANGED_THERMAL_CAP = 1u << 15,
        /* Not a property: the change was found by a poll tick (the bus layer may coalesce it). */
        DEVICE_CHANGED_BY_POLL = 1u << 31,
        /* Each property on its own: a signal names only what changed (each costs the bus work). */
        DEVICE_CHANGED_RANGE = DEVICE_CHANGED_MIN_FREQUENCY | DEVICE_CHANGED_MAX_FREQUENCY,
        DEVICE_CHANGED_QOS = DEVICE_CHANGED_QOS_MIN_FREQUENCY | DEVICE_CHANGED_QOS_MAX_FREQUENCY |
                DEVICE_CHANGED_QOS_LATENCY,
};

struct manager_listener {
        /* The set of devices changed (start, reload, a device vanished). */
        void (*devices_changed)(struct manager *m, void *userdata);
        /* A device is about to go: drop everything that points into it (its requests). */
        void (*device_removing)(struct manager *m, struct manager_device *d, void *userdata);
        /* Published properties of a device changed: a DEVICE_CHANGED_* mask. */
        void (*device_changed)(struct manager *m, struct manager_device *d, unsigned mask, void *userdata);
        /* The active profile or its source changed. */
        void (*profile_changed)(struct manager *m, void *userdata);
        /* The floor and ceiling the profile holds on a device (d->profile.min_freq and max_freq) are
         * decided: set the daemon's own requests to them, without re-evaluating (the manager does). */
        void (*profile_requests)(struct manager *m, struct manager_device *d, void *userdata);
        /* A thermal rule tripped or released, or the rules changed (not on every reading). */
        void (*thermal_changed)(struct manager *m, void *userdata);
        /* A reload took the new configuration (after its devices and profile settled). */
        void (*reloaded)(struct manager *m, void *userdata);
};

/* Where the active profile came from (ActiveProfileSource). */
enum manager_profile_source {
        PROFILE_SOURCE_NONE, /* no profile */
        PROFILE_SOURCE_DEFAULT,
        PROFILE_SOURCE_CLIENT,
        PROFILE_SOURCE_POWER_PROFILES,
};

struct manager_options {
        const char *config_file;
        const char *config_dir;
        const char *root;
        const char *runtime_dir;
        const char *state_dir;
        bool dry_run;
        /* Asked once the configuration is read, when it follows power-profiles-daemon, before any
         * device is written: its profile now (1, *ret to free), 0 when it is not there, < 0 when it
         * could not be read (logged). NULL: not asked. */
        int (*desktop_profile)(void *userdata, char **ret);
        void *desktop_profile_userdata;
};

/* Devices polling at the same interval share one timer. */
struct poll_group {
        struct manager *manager;
        uint64_t interval; /* µs */
        uint64_t next;     /* CLOCK_MONOTONIC µs of the next tick */
        sd_event_source *timer;
        struct manager_device **devices;
        size_t n_devices;
        struct thermal_rule **rules; /* thermal rules reading their zone at this interval */
        size_t n_rules;
};

/* A [thermal NAME] section at run time (daemon/manager-thermal.c). */
struct thermal_rule {
        struct manager *manager;
        const struct df_config_thermal *config; /* in the configuration in force */
        struct df_thermal_state state;
        struct df_thermal_zone zone;
        bool zone_missing; /* said in the log that it is not there */
        struct poll_group *group;
};

/* What was last reported to the listener, to report only real changes. */
struct device_published {
        const struct df_governor_ops *governor;
        char kernel_governor[DF_ATTR_VALUE_MAX];
        enum df_mode mode;
        uint64_t min, max;
        uint64_t usable_hash;
        uint64_t opp_hash;
        uint64_t polling;
        uint64_t qos[_DF_QOS_TYPE_MAX];
        uint32_t tunables[DF_GOVERNOR_TUNABLES_MAX];
        uint64_t current;
        unsigned error_serial;
        uint64_t thermal_cap;
};

/* A managed device: its resolved spec (what the configuration and the node say it is) and its
 * run-time state. */
struct manager_device {
        struct manager *manager;
        char *name;
        struct df_device_spec *spec;

        struct df_node *node;
        struct df_device *dev;

        struct df_load_source *load; /* open while the governor polls */
        struct poll_group *group;

        struct manager_device **children;
        size_t n_children;

        bool pending;     /* an event asked for a re-evaluation */
        bool offline;     /* a cpufreq policy whose CPUs are all offline: left alone */
        bool reconfigure; /* carried across a reload while offline: rebuilt when a CPU is back */
        bool skip_sample; /* the next load sample spans a sleep: taken, not used */
        bool prepared;    /* df_node_prepare() succeeded for the current mode */
        bool vanished;    /* its directory is gone: detach at the next safe point */
        bool dropping;    /* the load source gives no complete samples (logged once) */
        bool activated;   /* device_activate() gave it its backend and hooks: it may be evaluated */

        char last_error[256]; /* LastError */
        unsigned error_serial;
        char logged_error[256]; /* logged once per distinct error */
        bool access_failing;    /* a read or write of the node failed since the last good write */

        struct device_published published;
        /* Clamp mode: the node's available governors, read with its governor when the device is
         * published in full (manager-publish.c), so that bus reads do no I/O. */
        char **kernel_governors;
        size_t n_kernel_governors;

        /* The bus layer's bookkeeping: set and read by dbus/ only, except `path`. */
        struct {
                char *path;               /* its object path, set when the device is built */
                struct request *requests; /* the QoS request objects on it */
                size_t n_requests;
                bool announced;   /* InterfacesAdded was sent (or it predates the bus name) */
                bool in_batch;    /* its changes wait for the open change batch */
                unsigned changes; /* what changed meanwhile: DEVICE_CHANGED_* */
                /* CurrentFrequency changes found by polling, coalesced (dbus/bus-device-changes.c) */
                uint64_t current_sent, current_sent_usec;
                bool current_pending;
        } bus;

        struct df_blame_ring *ended;         /* the last requests that ended here, NULL before the first */
        struct thermal_blame *thermal_blame; /* the rules that capped it (daemon/manager-blame.c) */
        size_t n_thermal_blame;

        struct df_profile_decision profile;  /* what the active profile sets here */
        char kernel_base[DF_ATTR_VALUE_MAX]; /* clamp: the kernel's governor before a profile set one */
        /* A device a reload keeps: the governor it ran (with its state and overrides of the profile)
         * from keep_device() until its activation decides the one it runs now; NULL otherwise. */
        struct df_governor *before_reload;
        bool before_reload_fresh; /* and whether its sample was still to be decided on */
        /* Clamp mode: the kernel's time in state charged with the voltages of the time (Energy). */
        struct df_stats_outside kernel_energy;
};

struct manager {
        sd_event *event;
        char *config_file;
        char *config_dir;
        char *runtime_dir;
        char *state_dir;
        bool dry_run;
        int (*desktop_profile)(void *userdata, char **ret); /* manager_options */
        void *desktop_profile_userdata;

        struct df_root root;
        struct df_config *config;
        struct manager_device **devices; /* sorted by name */
        size_t n_devices;
        struct poll_group **groups;
        size_t n_groups;
        struct thermal_rule **rules; /* in the order of the configuration */
        size_t n_rules;
        sd_event_source *detach_event;     /* detaches vanished devices after a bus operation */
        sd_event_time_handler_t poll_tick; /* what a polling group's timer runs (manager-lifecycle.c) */

        struct originals *originals;
        struct state *state;

        char *profile; /* the active profile, NULL for none */
        enum manager_profile_source profile_source;
        char *reload_error; /* the first error of the last reload when it failed, for the status */

        const struct manager_listener *listener;
        void *listener_userdata;
};

int manager_new(sd_event *event, const struct manager_options *o, struct manager **ret);
struct manager *manager_free(struct manager *m);
void manager_set_listener(struct manager *m, const struct manager_listener *l, void *userdata);

/* Read the configuration and attach every device. Errors are logged (file:line). */
int manager_start(struct manager *m);

/*
 * Re-read the configuration. The new one is validated in full (files and device nodes) before
 * anything changes; on error the old one stays in force and *ret_error (when given) receives
 * "file:line: what" (caller frees). QoS requests stay on devices that remain.
 */
int manager_reload(struct manager *m, char **ret_error);

/* Hotplug (daemon/hotplug.c calls these). A node that appeared at `path` (inside the root) attaches
 * with its section or, with autodiscover, under its own name: 1 attached, 0 not (absent, ignored,
 * attached already). */
int manager_attach_path(struct manager *m, const char *path);
/* The node at `path` went away: its device is detached when its directory is gone. */
void manager_detach_path(struct manager *m, const char *path);
/* A CPU came, went, came online or went offline: attach, detach, or wait for policies. */
void manager_rescan_policies(struct manager *m);
/* Back from a sleep: write again what a driver or the firmware reset. */
void manager_resume(struct manager *m);

/* Write back every device's originals (exit, bus loss); devices stay attached but undriven.
 * Negative when a device's could not be written: its record stays for --restore. */
int manager_restore_all(struct manager *m);

/* A one-line summary for sd_notify STATUS=. Caller frees. */
char *manager_status(const struct manager *m);

/* --check-config: validate and print the resolved devices. 0, or -EINVAL after logging errors. */
int manager_check_config(const struct manager_options *o, FILE *out);

/* --restore: write back every originals entry of the runtime directory and remove the file. */
int manager_restore_originals_file(const struct manager_options *o);

struct manager_device *manager_find_device(const struct manager *m, const char *name);

/*
 * Make profile `name` active (NULL or "" for none) for `source`: decided for every device, then
 * applied. 1 when it changed, 0 when it was active already (only its source may change), -ENOENT
 * for an unknown profile (nothing changes). A client's choice is persisted.
 */
int manager_set_profile(struct manager *m, const char *name, enum manager_profile_source source);
/* Hand the listener the daemon's requests of every device again (a listener that came later). */
void manager_profile_resync(struct manager *m);
/* Apply the active profile to one device (attach, hotplug, reload). */
void manager_profile_apply_device(struct manager *m, struct manager_device *d);
/* "default", "client", "power-profiles-daemon", or "" for none. */
const char *manager_profile_source_to_string(enum manager_profile_source s);
/* Whether a SetGovernor ("governor") or SetTunable (the tunable's name) of `key` overrides the
 * active profile: then it is kept in memory only, and the next switch drops it. */
bool manager_device_profile_sets(const struct manager_device *d, const char *key);

/* Operations the bus layer calls. Each re-evaluates the device before it returns. */
int manager_device_add_request(
        struct manager_device *d, struct df_qos_request *req, enum df_qos_type type, uint64_t value);
int manager_device_update_request(struct manager_device *d, struct df_qos_request *req, uint64_t value);
int manager_device_remove_request(struct manager_device *d, struct df_qos_request *req);

/*
 * -EINVAL: unknown governor (govern); -ENOPKG: not offered by the kernel (clamp); -ENOMEDIUM:
 * the governor needs a load source the device lacks; -ENOLINK: passive without a parent, or one
 * not attached; -ENOMEM. Any other errno is the device's failure: the load source could not be
 * opened (govern), the kernel's list could not be read or the write failed (clamp); nothing
 * changed, and LastError and the log say why.
 */
int manager_device_set_governor(struct manager_device *d, const char *name);
/* Why governor `ops` cannot run on the device (the -ENOMEDIUM and -ENOLINK of
 * manager_device_set_governor()), for an error reply or LastError; NULL for another `r`. */
const char *manager_device_governor_refusal(
        const struct manager_device *d, const struct df_governor_ops *ops, int r, char *buf, size_t size);
/* -EOPNOTSUPP unless govern mode under the userspace governor. */
int manager_device_set_frequency(struct manager_device *d, uint64_t freq);
/* -EOPNOTSUPP in clamp mode, -ENOENT unknown name, -ERANGE out of range. */
int manager_device_set_tunable(struct manager_device *d, const char *name, uint32_t value);
/* -ENODEV no such point, -EBUSY the last point the administrator has enabled. */
int manager_device_set_operating_point(struct manager_device *d, uint64_t freq, bool enabled);

/* Statistics: devfreqd's own in govern mode, the kernel's in clamp mode. Caller frees arrays. */
int manager_device_get_statistics(
        struct manager_device *d, uint64_t **ret_freqs, uint64_t **ret_time_ms, uint64_t **ret_trans,
        size_t *ret_n, uint64_t *ret_total);
int manager_device_reset_statistics(struct manager_device *d);

/* Values that depend on the mode (what the kernel says in clamp mode, devfreqd in govern mode). */
/* Dynamic energy in seconds at the top point (DESIGN.md "Metrics and blame"), 0 without voltages:
 * charged as time passes with the voltages in force (govern), from the kernel's time in state
 * with the voltages in force since it was counted (clamp; a reload folds in what the voltages
 * before it owe). */
double manager_device_energy(struct manager_device *d);
uint64_t manager_device_current_frequency(struct manager_device *d);
const char *manager_device_governor(const struct manager_device *d);
int manager_device_available_governors(struct manager_device *d, char ***ret, size_t *ret_n);
uint64_t manager_device_polling_ms(const struct manager_device *d);

/* CLOCK_MONOTONIC in µs, the manager's time. */
static inline uint64_t now_usec(void) {
        return df_now_usec(CLOCK_MONOTONIC);
}
