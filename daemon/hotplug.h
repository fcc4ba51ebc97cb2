/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Devices that come and go, from udev's uevents. */
#pragma once

#include <systemd/sd-device.h>
#include <systemd/sd-event.h>

struct manager;

/* Watch devfreq and cpu uevents on `event`. When no monitor can be had (no netlink in a container),
 * the reason is logged once and 0 is returned with *ret NULL: the daemon runs without hotplug. */
int hotplug_start(sd_event *event, struct manager *m, sd_device_monitor **ret);
