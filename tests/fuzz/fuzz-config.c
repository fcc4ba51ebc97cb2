/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Fuzzing harness: arbitrary bytes as a configuration file. Must never crash, leak, or return a
 * model together with errors. */

#include <stdint.h>
#include <stdlib.h>

#include "config.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct df_config_errors errors = {};
        struct df_config *c = NULL;
        int r;

        r = df_config_load_string("fuzz.conf", (const char *) data, size, &c, &errors);
        if (r >= 0 && (!c || errors.n > 0))
                abort();
        if (r < 0 && c)
                abort();
        df_config_free(c);
        df_config_errors_done(&errors);
        return 0;
}
