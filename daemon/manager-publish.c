/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Change publication: a snapshot of what a device publishes, compared with the last one reported,
 * tells the listener which properties changed; and the polling interval it publishes. */

#include <assert.h>
#include <string.h>

#include "manager-internal.h"
#include "strv.h"

static uint64_t hash_mix(uint64_t h, uint64_t v) {
        /* FNV-1a over the value's bytes; only compared with itself. */
        for (int i = 0; i < 8; i++) {
                h ^= (v >> (i * 8)) & 0xff;
                h *= UINT64_C(0x100000001b3);
        }
        return h;
}

/* The node's governors, kept for the bus; a failed read keeps the last list. */
static void refresh_kernel_governors(struct manager_device *d) {
        char **v = NULL;
        size_t n = 0;

        if (df_node_kernel_governors(d->node, &v, &n) < 0)
                return;
        strv_free(d->kernel_governors, d->n_kernel_governors);
        d->kernel_governors = v;
        d->n_kernel_governors = n;
}

static void snapshot(struct manager_device *d, struct device_published *p, bool full) {
        struct df_device *dev = d->dev;

        *p = d->published;
        p->current = dev->mode == DF_MODE_GOVERN ? df_node_running(d->node, dev->current) : 0;
        p->error_serial = d->error_serial;
        p->mode = dev->mode;
        p->thermal_cap = dev->opps.cap;
        if (!full)
                return;

        const uint64_t *usable;
        size_t n;
        uint64_t h = UINT64_C(0xcbf29ce484222325);

        p->governor = dev->mode == DF_MODE_GOVERN ? dev->governor.ops : NULL;
        if (dev->mode == DF_MODE_CLAMP) {
                (void) df_node_kernel_governor(d->node, p->kernel_governor, sizeof(p->kernel_governor));
                refresh_kernel_governors(d);
        } else
                p->kernel_governor[0] = '\0';
        df_device_get_range(dev, &p->min, &p->max);
        df_device_get_usable(dev, &usable, &n);
        for (size_t i = 0; i < n; i++)
                h = hash_mix(h, usable[i]);
        p->usable_hash = h;
        h = UINT64_C(0xcbf29ce484222325);
        for (size_t i = 0; i < dev->opps.n; i++)
                h = hash_mix(hash_mix(h, dev->opps.opps[i].freq), !dev->opps.opps[i].disabled);
        p->opp_hash = h;
        p->polling = manager_device_polling_ms(d);
        for (int t = 0; t < _DF_QOS_TYPE_MAX; t++)
                p->qos[t] = df_qos_read_value(&dev->qos, (enum df_qos_type) t);
        memcpy(p->tunables, dev->governor.tunables, sizeof(p->tunables));
}

void device_publish(struct manager_device *d, bool full) {
        struct device_published now, *was = &d->published;
        const struct manager_listener *l = d->manager->listener;
        unsigned mask = 0;

        assert(d);

        snapshot(d, &now, full);
        if (now.current != was->current)
                mask |= DEVICE_CHANGED_CURRENT_FREQUENCY;
        if (now.error_serial != was->error_serial)
                mask |= DEVICE_CHANGED_LAST_ERROR;
        if (now.mode != was->mode)
                mask |= DEVICE_CHANGED_MODE | DEVICE_CHANGED_AVAILABLE_GOVERNORS;
        if (now.thermal_cap != was->thermal_cap)
                mask |= DEVICE_CHANGED_THERMAL_CAP;
        if (full) {
                if (now.governor != was->governor || !streq(now.kernel_governor, was->kernel_governor))
                        mask |= DEVICE_CHANGED_GOVERNOR | DEVICE_CHANGED_TUNABLES;
                if (now.min != was->min)
                        mask |= DEVICE_CHANGED_MIN_FREQUENCY;
                if (now.max != was->max)
                        mask |= DEVICE_CHANGED_MAX_FREQUENCY;
                if (now.usable_hash != was->usable_hash)
                        mask |= DEVICE_CHANGED_AVAILABLE_FREQUENCIES;
                if (now.opp_hash != was->opp_hash)
                        mask |= DEVICE_CHANGED_OPERATING_POINTS;
                if (now.polling != was->polling)
                        mask |= DEVICE_CHANGED_POLLING_INTERVAL;
                if (now.qos[DF_QOS_MIN_FREQUENCY] != was->qos[DF_QOS_MIN_FREQUENCY])
                        mask |= DEVICE_CHANGED_QOS_MIN_FREQUENCY;
                if (now.qos[DF_QOS_MAX_FREQUENCY] != was->qos[DF_QOS_MAX_FREQUENCY])
                        mask |= DEVICE_CHANGED_QOS_MAX_FREQUENCY;
                if (now.qos[DF_QOS_LATENCY] != was->qos[DF_QOS_LATENCY])
                        mask |= DEVICE_CHANGED_QOS_LATENCY;
                if (memcmp(now.tunables, was->tunables, sizeof(now.tunables)) != 0)
                        mask |= DEVICE_CHANGED_TUNABLES;
        }
        *was = now;
        if (mask && l && l->device_changed)
                l->device_changed(
                        d->manager, d, full ? mask : mask | DEVICE_CHANGED_BY_POLL,
                        d->manager->listener_userdata);
}

/* The interval the device is polled at: devfreqd's own governor's in govern mode; in clamp mode
 * the kernel's devfreq governor is the one that polls, at its polling_interval (ms; 0: it does
 * not). A cpufreq policy's kernel governor shows no per-policy interval. */
uint64_t manager_device_polling_ms(const struct manager_device *d) {
        uint64_t ms;

        assert(d);

        if (d->dev->mode == DF_MODE_CLAMP) {
                if (!d->node || d->node->kind != DF_KIND_DEVFREQ || d->vanished)
                        return 0;
                return df_attr_read_u64(d->node->dirfd, "polling_interval", &ms) >= 0 ? ms : 0;
        }
        return df_device_polls(d->dev) ? d->spec->polling_usec / 1000 : 0;
}
