/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Thermal zones under <root>/sys/class/thermal: found by type or by name, their temperature read
 * from a kept-open attribute. */
#pragma once

#include <stdint.h>

#include "sysfs.h"

struct df_thermal_zone {
        char *name; /* thermal_zoneN, NULL while not found */
        int fd;     /* its temp attribute, kept open; -EBADF while not found */
};

#define DF_THERMAL_ZONE_INIT                                                                                 \
        { .fd = -EBADF }

/*
 * Find the zone named `spec` (thermal_zoneN), else the one whose type is `spec` (of several, the
 * lowest N), and open its temp attribute. 0, -ENOENT when no zone matches, or another negative
 * errno. A zone already open is closed first.
 */
int df_thermal_zone_open(const struct df_root *root, const char *spec, struct df_thermal_zone *z);

/* Its temperature in millidegrees Celsius: 0, or a negative errno (-EBADF when not open, -EINVAL
 * when the attribute holds no integer). A zone that went away reads -ENODEV or -ENOENT. */
int df_thermal_zone_read(struct df_thermal_zone *z, int64_t *ret_millicelsius);

void df_thermal_zone_close(struct df_thermal_zone *z);
