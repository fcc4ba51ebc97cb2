/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A device's sysfs node (devfreq in Hz, cpufreq policy in kHz) as a backend: discovery, OPP
 * import, originals, governor selection, applying frequencies or ranges, kernel statistics. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device.h"
#include "log.h"
#include "macro.h"
#include "names.h"
#include "sysfs.h"

#define DF_ATTR_VALUE_MAX 64

/*
 * Settings of a node before devfreqd wrote anything, exactly as sysfs showed them (units of the
 * node: Hz for devfreq, kHz for cpufreq), and the hardware bounds for the "no limit" rule.
 */
struct df_originals {
        char governor[DF_ATTR_VALUE_MAX];
        char min[DF_ATTR_VALUE_MAX];
        char max[DF_ATTR_VALUE_MAX];
        char hw_min[DF_ATTR_VALUE_MAX]; /* devfreq: lowest available frequency; cpufreq: cpuinfo_min_freq */
        char hw_max[DF_ATTR_VALUE_MAX];
        char freq[DF_ATTR_VALUE_MAX]; /* under the userspace governor: set_freq / scaling_setspeed; else "" */
};

/* How the node is driven now. */
enum df_node_drive {
        DF_DRIVE_NONE,      /* nothing written yet */
        DF_DRIVE_USERSPACE, /* govern: kernel userspace governor, set_freq / scaling_setspeed */
        DF_DRIVE_PINNED,    /* govern without it: min and max pinned to the target */
        DF_DRIVE_CLAMP,     /* clamp: min and max are the effective range */
};

struct df_node;
/* Called once, before the first write to the node: the daemon records the originals. */
typedef int (*df_node_first_write_t)(struct df_node *n, void *userdata);

struct df_node {
        enum df_kind kind;
        char *path; /* canonical, inside the root: /sys/devices/.../devfreq/gpu, .../cpufreq/policy0 */
        char *name; /* the directory's name: "ff9a0000.gpu", "policy0" */
        int dirfd;
        bool on_sysfs; /* the directory is the kernel's (not a test root's plain files) */

        struct df_log log;
        bool dry_run; /* log "would write V to PATH" and carry on as if written */
        df_node_first_write_t first_write;
        void *first_write_userdata;
        bool wrote_once;

        bool has_userspace; /* the kernel offers its userspace governor */
        bool has_table;     /* the kernel lists frequencies (not intel_pstate-like) */
        /* That list, Hz ascending, read once at open: the kernel fixes it when it registers the
         * node (devfreq's freq_table, the policy's frequency table). NULL without has_table. */
        uint64_t *points;
        size_t n_points;
        uint64_t hw_min; /* Hz */
        uint64_t hw_max;
        unsigned *cpus; /* cpufreq: related_cpus */
        size_t n_cpus;

        enum df_node_drive drive;
        int applied_fd; /* set_freq / scaling_setspeed, kept open */
        int min_fd;     /* min_freq / scaling_min_freq, kept open (read-only under the userspace
                         * drive, once the policy's limits clamp the value written) */
        int max_fd;
        bool has_written;
        uint64_t written; /* Hz, last value written to the applied-value attribute */
        /* Hz: what that attribute read back when the policy's own limits clamped the value
         * written (a cpufreq policy runs at its cap, not at devfreqd's choice); 0 otherwise. */
        uint64_t clamped;
        uint64_t written_min; /* Hz, pinned or clamp */
        uint64_t written_max;

        /* Clamp drive, sharing min/max with other writers: the values found there (what another
         * writer, or nobody, put there; "" before the first look) and whether the attributes hold
         * devfreqd's range now. */
        char found_min[DF_ATTR_VALUE_MAX];
        char found_max[DF_ATTR_VALUE_MAX];
        bool limits_held;
        /* The kernel's cooling device of the node, by the type the kernel gives it
         * ("devfreq-ff9a0000.gpu", "cpufreq-cpu0"; node-cooling.c), and the root to find it in
         * (-EBADF when the node can have none). */
        char cooling_type[64];
        int root_fd;
        /* That cooling device's directory, kept once found (-EBADF before). */
        int cooling_fd;

        char error[256]; /* the last failure, "write …/set_freq: Device or resource busy" */
};

/*
 * Open the node at `path` (inside the root; a class symlink is resolved). The kind is found from
 * the attributes present. -ENOENT when absent, -EXDEV outside <root>/sys, -ENODEV when the
 * directory is neither a devfreq node nor a cpufreq policy.
 */
int df_node_open(const struct df_root *root, const char *path, struct df_node **ret);
struct df_node *df_node_free(struct df_node *n);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct df_node *, df_node_free);

/* Whether the node's directory still exists (a removed device is detached). */
bool df_node_exists(const struct df_node *n);

/* Whether some CPU of a cpufreq policy is online (its affected_cpus lists one); devfreq: true. */
bool df_node_online(const struct df_node *n);
/* Whether `path` is a cpufreq policy whose CPUs are all offline: the kernel answers none of its
 * reads (EBUSY), so it cannot be opened until one is back. */
bool df_node_path_offline(const struct df_root *root, const char *path);

/*
 * Every devfreq node (/sys/class/devfreq/NAME, as class paths) and cpufreq policy
 * (/sys/devices/system/cpu/cpufreq/policyN) of the root, sorted. Caller frees each and the array.
 */
int df_node_discover(const struct df_root *root, char ***ret, size_t *ret_n);

/*
 * The node's frequencies in Hz, ascending: available_frequencies, scaling_available_frequencies
 * (kHz), or for drivers without a list a synthetic table from cpuinfo_min_freq to
 * cpuinfo_max_freq in `step` Hz, both endpoints included.
 */
int df_node_read_frequencies(struct df_node *n, uint64_t step, uint64_t **ret, size_t *ret_n);

/* cur_freq / scaling_cur_freq, in Hz. */
int df_node_read_current(struct df_node *n, uint64_t *ret);

int df_node_read_originals(struct df_node *n, struct df_originals *ret);

/*
 * Whether a record of originals may be written to this node: a governor the node offers and
 * frequencies within its hardware bounds (or devfreq's "no limit" 0). -EBADMSG (n->error says
 * what) for a record that is not to be trusted; a read error as it is.
 */
int df_node_check_originals(struct df_node *n, const struct df_originals *o);

/*
 * Write the originals back (governor, then min and max in an order the kernel accepts); a min
 * or max equal to the hardware bound is written as "no limit" (devfreq 0, cpufreq the cpuinfo
 * bound), then under the userspace governor its frequency. A record df_node_check_originals()
 * refuses writes nothing (-EBADMSG). Stops driving the node. Returns the first error, after trying
 * every attribute.
 */
int df_node_restore(struct df_node *n, const struct df_originals *o);

/* The kernel governor in force, and the ones the node offers (caller frees the strv). */
int df_node_kernel_governor(struct df_node *n, char *buf, size_t size);
int df_node_kernel_governors(struct df_node *n, char ***ret, size_t *ret_n);
/* Whether the node offers this kernel governor (its available_governors list names it): 1 or 0,
 * or a negative errno when the list cannot be read (n->error names it). */
int df_node_offers_governor(struct df_node *n, const char *name);
/* Write the kernel governor; -EINVAL when the node does not offer it. */
int df_node_set_kernel_governor(struct df_node *n, const char *name);

/*
 * Get ready to drive the node in `mode`: govern selects the kernel userspace governor when offered
 * (else pins min/max), clamp writes only min/max. Opens the kept-open attributes. Writes nothing
 * in clamp and pinned modes; selecting the userspace governor is a write (originals first).
 */
int df_node_prepare(struct df_node *n, enum df_mode mode);

/*
 * Clamp drive, the limits shared with other writers. Reads min/max: before devfreqd holds them,
 * whatever is there is the found limits (the first look, or another writer changed them: 1);
 * while it holds them, values other than the ones it wrote are another writer's (2, and `note`,
 * when not NULL, says what changed): they become the found limits and the attributes are no
 * longer held, so the next write puts devfreqd's range back inside them. 0 when nothing changed.
 */
int df_node_check_limits(struct df_node *n, char *note, size_t note_size);
/* Room for that note: two attribute names, a value and a frequency in the node's units. */
#define DF_NODE_NOTE_MAX 192

/* The found limits in Hz as bounds of an effective range: 0 / UINT64_MAX where a value is at
 * the hardware bound or "no limit", or where none was found. */
void df_node_found_range(const struct df_node *n, uint64_t *ret_min, uint64_t *ret_max);

/* df_backend_ops over a df_node (userdata = the node). */
extern const struct df_backend_ops df_node_backend_ops;

/*
 * Foreign writers, userspace drive only: re-read the applied-value attribute and compare it with
 * the last value written. 1 (and *ret_seen, Hz) when another writer changed it, 0 when not (or
 * nothing to check), negative errno on a read error.
 */
int df_node_check_foreign(struct df_node *n, uint64_t *ret_seen);

/* Govern mode: the frequency the node runs at, Hz: the point applied, or the cap the policy's
 * own limits hold it at (as the last df_node_check_foreign() read it back). */
uint64_t df_node_running(const struct df_node *n, uint64_t applied);

/* Userspace drive: if the kernel governor is no longer userspace, select it again. 1 when it had
 * to, the governor found in `ret_seen` (may be NULL; `size` bytes). */
int df_node_check_kernel_governor(struct df_node *n, char *ret_seen, size_t size);

/*
 * The kernel's statistics (clamp mode): devfreq trans_stat, or cpufreq stats/ (time in USER_HZ
 * ticks converted to ms); frequencies in Hz, ascending, `trans` n*n row = from. -ENODATA when
 * the node keeps none (intel_pstate).
 */
int df_node_read_kernel_stats(
        struct df_node *n, uint64_t **ret_freqs, uint64_t **ret_time_ms, uint64_t **ret_trans, size_t *ret_n,
        uint64_t *ret_total);
int df_node_reset_kernel_stats(struct df_node *n);
