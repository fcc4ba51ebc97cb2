/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* devfreqctl thermal: the thermal rules, their zones' last readings, and which are tripped. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "devfreqctl.h"

/* Whether the device's blame has rule `name` among its owners: the rule covers the device. */
static bool owns(const struct ctl_blame_entry *blame, size_t n_blame, const char *name) {
        for (size_t i = 0; i < n_blame; i++)
                if (blame[i].id == 0 && strneq(blame[i].command, "thermal ", strlen("thermal ")) &&
                    streq(blame[i].command + strlen("thermal "), name))
                        return true;
        return false;
}

char *
ctl_capping_rules(const struct prop *rules, uint64_t cap, const struct ctl_blame_entry *blame, size_t n_blame) {
        char *s = NULL;
        size_t size = 0;
        FILE *f;
        bool any = false;

        if (!rules || cap == 0 || !(f = open_memstream(&s, &size)))
                return NULL;
        for (size_t i = 0; i < rules->n; i++)
                if (rules->rules[i].tripped && rules->rules[i].cap == cap &&
                    owns(blame, n_blame, rules->rules[i].name)) {
                        fprintf(f, "%s%s", any ? ", " : "", rules->rules[i].name);
                        any = true;
                }
        if (fclose(f) != 0 || !any) {
                free(s);
                return NULL;
        }
        return s;
}

int cmd_thermal(struct ctl *c) {
        _cleanup_(props_done) struct props ps = {};
        const struct prop *rules;
        struct json j;

        if (ctl_get_all(c, NULL, OBJECT_ROOT, IFACE_MANAGER, &ps) < 0)
                return EXIT_DAEMON; /* said why */
        rules = props_get(&ps, "ThermalRules");
        if (!rules)
                return ctl_fail(NULL, "this devfreqd has no thermal rules (ThermalRules is missing)");
        if (c->json) {
                json_init(&j, stdout);
                json_begin_object(&j, false);
                json_prop(&j, rules);
                json_end_object(&j);
                return json_finish(&j) < 0 ? EXIT_DAEMON : EXIT_SUCCESS;
        }
        if (rules->n == 0)
                printf("No thermal rules.\n");
        for (size_t i = 0; i < rules->n; i++) {
                _cleanup_free_ char *line = format_rule(&rules->rules[i]);
                if (!line)
                        return ctl_fail(NULL, "out of memory");
                printf("%s\n", line);
        }
        return EXIT_SUCCESS;
}
