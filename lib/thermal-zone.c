/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Thermal zones: /sys/class/thermal/thermal_zoneN, its type and its temp. */

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "thermal-zone.h"
#include "units.h"

#define CLASS "/sys/class/thermal"

static bool zone_number(const char *name, uint64_t *ret) {
        return strneq(name, "thermal_zone", 12) && df_safe_atou64(name + 12, ret) >= 0;
}

/* Whether zone `name` matches `spec`: its name, or the content of its type attribute. */
static bool matches(const struct df_root *root, const char *name, const char *spec) {
        _cleanup_free_ char *path = NULL;
        _cleanup_close_ int fd = -EBADF;
        char type[128];

        if (streq(name, spec))
                return true;
        if (asprintf(&path, CLASS "/%s", name) < 0)
                return false;
        fd = df_root_open_path(root, path, O_RDONLY | O_DIRECTORY);
        return fd >= 0 && df_attr_read(fd, "type", type, sizeof(type)) >= 0 && streq(type, spec);
}

/* The name of the matching zone with the lowest number: 0 and *ret, or -ENOENT. */
static int find(const struct df_root *root, const char *spec, char **ret) {
        _cleanup_(closedirp) DIR *d = NULL;
        uint64_t best_n = UINT64_MAX, num;
        char *best = NULL;
        int k;

        k = df_root_opendir(root, CLASS, &d);
        if (k < 0)
                return k;
        for (struct dirent *de; (de = readdir(d));) {
                if (!zone_number(de->d_name, &num) || num >= best_n || !matches(root, de->d_name, spec))
                        continue;
                free(best);
                best = strdup(de->d_name);
                if (!best)
                        return -ENOMEM;
                best_n = num;
        }
        if (!best)
                return -ENOENT;
        *ret = best;
        return 0;
}

int df_thermal_zone_open(const struct df_root *root, const char *spec, struct df_thermal_zone *z) {
        _cleanup_free_ char *name = NULL, *path = NULL;
        _cleanup_close_ int dir = -EBADF;
        int r;

        assert(root);
        assert(spec);
        assert(z);

        df_thermal_zone_close(z);
        r = find(root, spec, &name);
        if (r < 0)
                return r;
        if (asprintf(&path, CLASS "/%s", name) < 0)
                return -ENOMEM;
        dir = df_root_open_path(root, path, O_RDONLY | O_DIRECTORY);
        if (dir < 0)
                return dir;
        r = df_attr_open(dir, "temp", O_RDONLY);
        if (r < 0)
                return r;
        z->fd = r;
        z->name = TAKE_PTR(name);
        return 0;
}

int df_thermal_zone_read(struct df_thermal_zone *z, int64_t *ret_millicelsius) {
        char buf[32];
        int64_t v;
        ssize_t n;

        assert(z);
        assert(ret_millicelsius);

        if (z->fd < 0)
                return -EBADF;
        n = df_attr_pread(z->fd, buf, sizeof(buf));
        if (n < 0)
                return (int) n;
        /* sysfs gives a bare number of millidegrees; a "C" would be a different file. */
        if (strchr(buf, 'C') || strchr(buf, 'c') || df_parse_temperature(buf, &v) < 0)
                return -EINVAL;
        *ret_millicelsius = v;
        return 0;
}

void df_thermal_zone_close(struct df_thermal_zone *z) {
        assert(z);

        z->fd = safe_close(z->fd);
        free(z->name);
        z->name = NULL;
}
