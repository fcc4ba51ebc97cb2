/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Connecting to a bus named as the command line names it: "system", "session" or an address. */

#include "bus-internal.h"
#include "macro.h"

int bus_connect(const char *address, sd_bus **ret) {
        sd_bus *bus = NULL;
        int r;

        if (streq(address, "system"))
                r = sd_bus_open_system_with_description(&bus, "devfreqd");
        else if (streq(address, "session"))
                r = sd_bus_open_user_with_description(&bus, "devfreqd");
        else {
                r = sd_bus_new(&bus);
                if (r >= 0)
                        r = sd_bus_set_address(bus, address);
                if (r >= 0)
                        r = sd_bus_set_bus_client(bus, 1);
                if (r >= 0)
                        r = sd_bus_set_description(bus, "devfreqd");
                if (r >= 0)
                        r = sd_bus_start(bus);
        }
        if (r < 0) {
                sd_bus_unref(bus);
                return r;
        }
        /* We restore the originals ourselves before exiting; sd-bus must not exit for us. */
        (void) sd_bus_set_exit_on_disconnect(bus, 0);
        *ret = bus;
        return 0;
}
