/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What a device's spec takes from its node: the frequency list when the section lists no points,
 * and whether the node offers the section's kernel governor. The only part of resolving that
 * reads sysfs. */

#include <assert.h>
#include <errno.h>
#include <stdlib.h>

#include "node.h"
#include "spec.h"

int df_spec_read_node(
        const struct df_config *c, const struct df_config_device *cd, struct df_node *node,
        struct df_node_facts *ret) {
        int r;

        assert(c);
        assert(node);
        assert(ret);

        *ret = (struct df_node_facts){ .path = node->path, .kind = node->kind };
        if (!cd || cd->n_opps == 0) {
                r = df_node_read_frequencies(
                        node, cd ? df_config_device_opp_step(cd) : DF_CONFIG_DEFAULT_OPP_STEP, &ret->freqs,
                        &ret->n_freqs);
                if (r == -ENOMEM)
                        return r;
                ret->freqs_error = MIN(r, 0);
        }
        if (cd && cd->governor && df_config_device_mode(c, cd) == DF_MODE_CLAMP)
                ret->governor_offered = df_node_offers_governor(node, cd->governor) > 0;
        return 0;
}

void df_node_facts_done(struct df_node_facts *f) {
        if (!f)
                return;
        free(f->freqs);
        f->freqs = NULL;
        f->n_freqs = 0;
}

int df_spec_resolve_node(
        const struct df_config *c, const struct df_config_device *cd, const char *name, struct df_node *node,
        struct df_config_errors *errors, struct df_device_spec **ret) {
        struct df_node_facts facts;
        int r;

        r = df_spec_read_node(c, cd, node, &facts);
        if (r >= 0)
                r = df_spec_resolve(c, cd, name, &facts, errors, ret);
        df_node_facts_done(&facts);
        return r;
}
