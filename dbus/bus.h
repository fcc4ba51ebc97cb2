/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The bus side of the daemon: connection, name, objects (manager, devices, requests,
 * LogControl1), clients and authorization. Registers itself as the manager's listener. */
#pragma once

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "manager.h"

#define BUS_NAME "org.devfreqd.Devfreq1"

struct bus;

/* Called when the connection is gone: the daemon restores and exits non-zero. */
typedef void (*bus_lost_t)(struct bus *b, void *userdata);

/*
 * Connect to `address` ("system", "session", or a D-Bus address), serve the objects, own
 * BUS_NAME. `reload` is what Reload() and SIGHUP call.
 */
int bus_new(
        sd_event *event, struct manager *m, const char *address, bus_lost_t lost, void *userdata,
        struct bus **ret);
struct bus *bus_free(struct bus *b);
