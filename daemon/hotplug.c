/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Uevents from udev's netlink group (sd_device_monitor): devfreq nodes added and removed, CPUs
 * added, removed, onlined and offlined, and modules loaded and unloaded (a cpufreq driver registered
 * or unregistered sends no `cpu` uevent: its policies' directories come and go silently, and the
 * module's own uevent, sent after its init and after its exit, is what announces it). Only the event's own
 * properties are used; DEVPATH is resolved under the daemon's root, never through libsystemd (that would read
 * the host's /sys). */

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-device.h>

#include "hotplug.h"
#include "logging.h"
#include "manager.h"
#include "sysfs.h"

/* "/sys" + DEVPATH, when it is a clean absolute path (no "..", no ".", no empty component). */
static int devpath_to_path(const char *devpath, char **ret) {
        char *path;

        if (!devpath || devpath[0] != '/' || asprintf(&path, "/sys%s", devpath) < 0)
                return -EINVAL;
        if (df_path_check(path) < 0) {
                free(path);
                return -EINVAL;
        }
        *ret = path;
        return 0;
}

static const char *const action_names[_SD_DEVICE_ACTION_MAX] = {
        [SD_DEVICE_ADD] = "add",   [SD_DEVICE_REMOVE] = "remove", [SD_DEVICE_CHANGE] = "change",
        [SD_DEVICE_MOVE] = "move", [SD_DEVICE_ONLINE] = "online", [SD_DEVICE_OFFLINE] = "offline",
        [SD_DEVICE_BIND] = "bind", [SD_DEVICE_UNBIND] = "unbind",
};

static int on_uevent(sd_device_monitor *monitor, sd_device *device, void *userdata) {
        struct manager *m = userdata;
        const char *subsystem = NULL, *devpath = NULL;
        _cleanup_free_ char *path = NULL;
        sd_device_action_t action;

        if (sd_device_get_subsystem(device, &subsystem) < 0 || sd_device_get_devpath(device, &devpath) < 0 ||
            sd_device_get_action(device, &action) < 0)
                return 0;
        if (devpath_to_path(devpath, &path) < 0) {
                log_debug("uevent: ignoring DEVPATH '%s' (not a clean path under /sys)", devpath);
                return 0;
        }
        log_debug(
                "uevent: %s %s %s",
                action >= 0 && action < _SD_DEVICE_ACTION_MAX ? action_names[action] : "?", subsystem, path);
        if (streq(subsystem, "cpu")) {
                if (action == SD_DEVICE_ADD || action == SD_DEVICE_REMOVE || action == SD_DEVICE_ONLINE ||
                    action == SD_DEVICE_OFFLINE)
                        manager_rescan_policies(m);
        } else if (streq(subsystem, "module")) {
                if (action == SD_DEVICE_ADD || action == SD_DEVICE_REMOVE)
                        manager_rescan_policies(m);
        } else if (streq(subsystem, "devfreq")) {
                if (action == SD_DEVICE_ADD)
                        (void) manager_attach_path(m, path);
                else if (action == SD_DEVICE_REMOVE)
                        manager_detach_path(m, path);
        }
        return 0;
}

int hotplug_start(sd_event *event, struct manager *m, sd_device_monitor **ret) {
        _cleanup_(sd_device_monitor_unrefp) sd_device_monitor *monitor = NULL;
        int r;

        assert(m);
        assert(ret);

        r = sd_device_monitor_new(&monitor);
        if (r >= 0)
                r = sd_device_monitor_filter_add_match_subsystem_devtype(monitor, "devfreq", NULL);
        if (r >= 0)
                r = sd_device_monitor_filter_add_match_subsystem_devtype(monitor, "cpu", NULL);
        if (r >= 0)
                r = sd_device_monitor_filter_add_match_subsystem_devtype(monitor, "module", NULL);
        if (r >= 0)
                r = sd_device_monitor_attach_event(monitor, event);
        if (r >= 0)
                r = sd_device_monitor_start(monitor, on_uevent, m);
        if (r < 0) {
                log_warning_errno(
                        r,
                        "Cannot watch for devices coming and going (no netlink here?); running without hotplug: %m");
                *ret = NULL;
                return 0;
        }
        (void) sd_event_source_set_description(sd_device_monitor_get_event_source(monitor), "hotplug");
        *ret = TAKE_PTR(monitor);
        return 0;
}
