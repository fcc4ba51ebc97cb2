/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* devfreqctl: the cache of devfreqd's device and request objects, by path, as monitor and top keep
 * it: filled from GetManagedObjects, kept up from InterfacesAdded and InterfacesRemoved. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "devfreqctl.h"

static void object_done(struct ctl_object *o) {
        free(o->path);
        props_done(&o->props);
}

void objects_clear(struct ctl_objects *s) {
        for (size_t i = 0; i < s->n; i++)
                object_done(&s->v[i]);
        free(s->v);
        s->v = NULL;
        s->n = 0;
}

struct ctl_object *objects_find(const struct ctl_objects *s, const char *path) {
        for (size_t i = 0; i < s->n; i++)
                if (streq(s->v[i].path, path))
                        return &s->v[i];
        return NULL;
}

/* An object's properties, new or in place of the old ones; other interfaces are not kept. */
int objects_put(struct ctl_objects *s, const char *path, const char *iface, struct props *ps) {
        struct ctl_object *o = objects_find(s, path);

        if (!object_iface(iface))
                return 0;
        if (!o) {
                o = GROW(s->v, s->n);
                if (!o)
                        return -ENOMEM;
                *o = (struct ctl_object){ .path = strdup(path), .request = streq(iface, IFACE_REQUEST) };
                if (!o->path)
                        return -ENOMEM;
                s->n++;
        } else
                props_done(&o->props);
        o->props = TAKE_GENERIC(*ps, struct props, (struct props){});
        return 1;
}

/* The last object takes the place of the one removed: pointers into the cache are then stale. */
bool objects_remove(struct ctl_objects *s, const char *path) {
        struct ctl_object *o = objects_find(s, path);

        if (!o)
                return false;
        object_done(o);
        *o = s->v[--s->n];
        return true;
}

static int put_object(const char *path, const char *iface, struct props *ps, void *userdata) {
        return objects_put(userdata, path, iface, ps);
}

int objects_load(struct ctl_objects *s, sd_bus *bus, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r;

        objects_clear(s);
        r = sd_bus_call_method(
                bus, BUS_NAME, OBJECT_ROOT, IFACE_OBJECT_MANAGER, "GetManagedObjects", error, &reply, NULL);
        if (r < 0 && sd_bus_error_has_names(error, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER))
                return 0;
        if (r >= 0)
                r = read_managed_objects(reply, put_object, s);
        return r < 0 ? r : 1;
}

int objects_removed(sd_bus_message *msg, const char **ret_path, bool *ret_request) {
        const char *path, *iface;
        int r;

        r = sd_bus_message_read_basic(msg, 'o', &path);
        if (r <= 0)
                return r;
        r = sd_bus_message_enter_container(msg, 'a', "s");
        if (r < 0)
                return r;
        /* An object is a device or a request, never both: the first of the two names it. */
        while ((r = sd_bus_message_read_basic(msg, 's', &iface)) > 0)
                if (object_iface(iface)) {
                        *ret_path = path;
                        *ret_request = streq(iface, IFACE_REQUEST);
                        return 1;
                }
        return r;
}
