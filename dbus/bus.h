/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The bus side of the daemon: connection, name, objects (manager, devices, requests,
 * LogControl1), clients and authorization. Registers itself as the manager's listener. */
#pragma once

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "bus-names.h"
#include "manager.h"

struct bus;

/* Called when the connection is gone: the daemon restores and exits non-zero. */
typedef void (*bus_lost_t)(struct bus *b, void *userdata);

/*
 * Connect to `address` ("system", "session", or a D-Bus address), serve the objects, own
 * BUS_NAME. `lost` is called when the connection is gone.
 */
int bus_new(
        sd_event *event, struct manager *m, const char *address, bus_lost_t lost, void *userdata,
        struct bus **ret);

/*
 * Serve the objects on `connection`, an already started connection (a peer-to-peer server end,
 * as the bus-object tests use): no name is requested and polkit is treated as absent. Without a
 * broker the peer has no unique name: it is the client "" (a request's Owner), its credentials
 * come from the socket, and its requests last as long as the connection. The connection is
 * attached to `event` unless it has an event loop already; bus_free() closes it.
 */
int bus_new_with_connection(sd_event *event, struct manager *m, sd_bus *connection, struct bus **ret);
struct bus *bus_free(struct bus *b);

/*
 * power-profiles-daemon's ActiveProfile now, asked on a connection of its own to `address` and
 * waited for (5 s at most), the newer name first: 1 with *ret (to free), 0 when neither name is
 * on the bus, < 0 when the bus or the service failed to answer (logged). Never activates it.
 */
int bus_read_desktop_profile(const char *address, char **ret);
