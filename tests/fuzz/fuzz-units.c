/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Fuzzing harness: every unit parser on arbitrary text; whatever parses must format back to
 * text that parses to the same value. */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char buf[DF_FREQ_STRING_MAX], *s;
        uint64_t u64, again;
        uint32_t u32, again32;

        if (size > 4096)
                return 0;
        s = strndup((const char *) data, size);
        if (!s)
                return 0;

        (void) df_safe_atou64(s, &u64);
        (void) df_safe_atou32(s, &u32);
        if (df_parse_frequency(s, &u64) >= 0) {
                if (df_parse_frequency(df_format_frequency_compact(buf, u64), &again) < 0 || again != u64)
                        abort();
                (void) df_format_frequency(buf, u64);
        }
        if (df_parse_duration(s, &u64) >= 0)
                (void) df_format_duration(buf, u64);
        if (df_parse_voltage(s, &u32) >= 0) {
                char v[DF_VOLTAGE_STRING_MAX];
                (void) df_format_voltage(v, u32);
        }
        if (df_parse_latency(s, &u32) >= 0 && (df_parse_duration(s, &u64) < 0 || u64 != u32))
                abort();
        (void) again32;
        free(s);
        return 0;
}
