/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the manager's files share and nobody else sees.
 *
 * The files call one way, each only the ones before it (checked on the objects by
 * tests/integration/layers.py):
 *   manager.c            lookups, polling groups, the deferred detach
 *   manager-blame.c      the thermal rules' binding time on a device
 *   manager-publish.c    what changed since the last report, for the listener
 *   manager-device.c     one device: evaluation, errors, the bus-facing operations
 *   manager-state.c      persisted choices applied to a device
 *   manager-thermal.c    thermal rules: zones read, caps set
 *   manager-profile.c    profiles decided and applied
 *   manager-build.c      configuration to devices, nothing written
 *   manager-offline.c    --check-config and --restore, without a running manager
 *   manager-attach.c     attaching and detaching devices
 *   manager-hotplug.c    devices and CPUs that come and go, resume
 *   manager-lifecycle.c  new, start, reload, restore, free; the event sources' handlers
 * What a lower file needs from a higher one runs through an event source the higher one made: a
 * polling group's timer runs manager->poll_tick, and manager_detach_vanished_later() enables
 * manager->detach_event.
 */
#pragma once

#include <stdarg.h>

#include "manager.h"

/* manager.c */
struct manager_device *manager_find_path(const struct manager *m, const char *path);
void manager_regroup(struct manager *m);
void manager_groups_free(struct manager *m);
void manager_detach_vanished_later(struct manager *m);

/* manager-blame.c */
/* The device's cap is now `cap`: the rule giving it binds from now, the one before stops. */
void manager_blame_thermal(struct manager *m, struct manager_device *d, uint64_t cap);
void manager_blame_free(struct manager_device *d);

/* manager-publish.c */
void device_publish(struct manager_device *d, bool full);

/* manager-device.c */
void device_event(struct df_device *dev, void *userdata);
void device_evaluate(struct manager_device *d, bool full_publish);
void device_poll(struct manager_device *d);
void device_set_error(struct manager_device *d, int level, const char *fmt, ...) _printf_(3, 4);
/* The node made ready for the device's mode; a failure is in LastError (or the device vanished). */
int device_prepare(struct manager_device *d);
/* Someone may have switched the kernel governor away from userspace: logged with its name, in
 * LastError, userspace selected again and the frequency written at once. */
void device_recheck_kernel_governor(struct manager_device *d);
int device_open_load(struct manager_device *d);
struct manager_device *device_free(struct manager_device *d);
/* After a reload changed its mode: Energy goes on from `energy`, counted now by the new mode. */
void manager_device_continue_energy(struct manager_device *d, double energy);
/* Clamp mode: 1 written, 0 in force already, -ENOPKG not offered; another errno is the node's
 * failure (its list unread or the write), in LastError. */
int manager_device_set_governor_kernel(struct manager_device *d, const char *name);
/* Govern mode: -ENOMEDIUM and -ENOLINK are refusals (manager_device_governor_refusal()); a load
 * source that cannot be opened is the device's failure, in LastError; the old governor stays. */
int device_switch_governor(struct manager_device *d, const struct df_governor_ops *ops);

/* manager-state.c: persisted choices */
/* `kernel_governor`: in clamp mode the saved kernel governor is written too (not while the active
 * profile sets one). */
int device_apply_state(struct manager_device *d, bool kernel_governor);
/* Whether a saved governor choice applies (made under the configuration in force): then it is
 * the governor written at activation, not the configured one first. */
bool device_saved_governor_applies(struct manager_device *d);
/* The saved SetFrequency, under the userspace governor (a profile's too); kept under another one
 * for when userspace runs, forgotten when initial-frequency changed since. */
void device_apply_saved_frequency(struct manager_device *d);

/* manager-thermal.c */
/* The rules of `c` from now on (a reload keeps the state of unchanged ones; new ones are read at
 * once); true when a rule was added, changed or removed. Called while the old configuration
 * exists; the devices are activated (and capped) afterwards. */
bool manager_thermal_load(struct manager *m, const struct df_config *c);
/* The cap on a device about to be activated. */
void manager_thermal_cap_device(struct manager *m, struct manager_device *d);
uint64_t manager_thermal_cap_of(const struct manager *m, const char *device);
/* A group's tick: read the zones of its rules; caps follow trips and releases at once. */
void manager_thermal_poll(struct manager *m, struct thermal_rule **rules, size_t n);
void manager_thermal_changed(struct manager *m);
void manager_thermal_free(struct manager *m);

/* manager-profile.c */
/* At start, before any device is activated, the profile to start with, in DESIGN's order:
 * power-profiles-daemon's when followed and there, else an earlier SetProfile's (unless
 * default-profile changed since), else default-profile. Nothing is applied yet. */
void manager_profile_choose(struct manager *m);
/* At start, after every device is activated: the chosen profile applied to all of them. */
void manager_profile_start(struct manager *m);
/* After a reload: the active profile against the new configuration, or none when it is gone. */
void manager_profile_reload(struct manager *m);
/* A device being activated (start, attach, reload), after its persisted choices: the active
 * profile's governor and tunables (in clamp mode, its kernel governor) before its first
 * evaluation (a reload keeps the overrides), so that it never runs the ones outside the profile in
 * between. Its requests, LastError and evaluation follow when the profile is applied to it. */
void manager_profile_settle(struct manager *m, struct manager_device *d);
/* Whether the active profile sets the kernel governor of a clamp-mode device, so that its
 * activation writes that one and not the configured one first. */
bool manager_profile_takes_kernel_governor(struct manager *m, struct manager_device *d);

/* manager-build.c: turn the configuration into devices without writing anything */
int build_devices(
        struct manager *m, const struct df_config *c, struct manager_device ***ret, size_t *ret_n,
        struct df_config_errors *errors);
void free_devices(struct manager_device **v, size_t n);
/*
 * One device from its section (cd; NULL when autodiscovered) and its node, nothing written: 1 and
 * the device; 0 for a node that is absent (a configured one is waited for, said in the log) or an
 * autodiscovered one that cannot be opened (skipped with a warning); -EINVAL with `errors` filled;
 * -ENOMEM.
 */
int build_device(
        struct manager *m, const struct df_config *c, const struct df_config_device *cd, const char *path,
        const char *name, struct manager_device **ret, struct df_config_errors *errors);

/* manager-offline.c */
int restore_entry(const struct df_root *root, const struct originals_entry *e, bool dry_run);
/* Whether restore_entry()'s answer means the record goes. */
bool restore_entry_done(int r);

/* manager-attach.c */
void link_passive(struct manager *m);
/* The originals of nodes about to be attached, saved with one write. */
void record_originals(struct manager *m, struct manager_device **v, size_t n);
/* Phase two of attaching, parents before children. */
void activate_all(struct manager *m, struct manager_device **fresh, size_t n_fresh);
/* Written back and forgotten; `save`: the file is saved now, else the caller saves once for many.
 * A write that fails keeps the record (for --restore) and returns its error; a node gone by then
 * has nothing to restore and loses its record, as with a removal. */
int restore_device(struct manager *m, struct manager_device *d, bool save);
/* The records of nodes no device manages (left by a crashed run, or by a device dropped while its
 * restore failed), and with `managed_too` every record (at start, before any device writes),
 * written back where that works now, and dropped. Returns how many stay owed to a node that is
 * there; a node that is absent keeps its record for when it is back. */
size_t manager_restore_owed(struct manager *m, bool managed_too, const char *why);
/* What the log says of a record written back after it was owed a while. */
#define OWED_SINCE "owed since an earlier run or attempt"
/* Out of the list's way already: the listener told, the originals restored (`restore`) or dropped,
 * the device freed. */
void remove_device(struct manager *m, struct manager_device *d, bool restore);
/* A device that stays across a reload keeps its object (requests point at it), node, requests,
 * frequency in force, last sample and, when the table is the same, its statistics; `fresh`, built
 * from the new configuration, gives the rest and is freed. */
void keep_device(struct manager *m, struct manager_device *old, struct manager_device *fresh);
/* Into the list, which stays sorted by name. */
int insert_device(struct manager *m, struct manager_device *d);
/* A device carried across a reload while its CPUs were offline takes the configuration in force
 * (d->reconfigure), as the reload would have given it. */
void reconfigure_device(struct manager *m, struct manager_device *d);
void manager_detach_vanished(struct manager *m);
