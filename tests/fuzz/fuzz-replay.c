/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Fuzzing harness: arbitrary bytes as a devfreq-replay trace, for each governor that a replay
 * runs (the first byte chooses it), as load samples or, with the first byte's top bit, as work in
 * a closed loop (--work --summary). */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"
#include "replay-work.h"
#include "replay.h"

static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
        /* The tool's error lines are expected; keep them out of the fuzzer's output. */
        devnull = fopen("/dev/null", "we");
        if (!devnull)
                abort();
        replay_set_error_stream(devnull);
        return 0;
}

/* Work of more than 9 digits a line would keep the closed loop draining for a very long time. */
static bool few_digits(const uint8_t *data, size_t size) {
        size_t run = 0;

        for (size_t i = 0; i < size; i++) {
                run = data[i] >= '0' && data[i] <= '9' ? run + 1 : 0;
                if (run > 9)
                        return false;
        }
        return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static const struct df_governor_ops *const governors[] = {
                &df_governor_simple_ondemand, &df_governor_ondemand,    &df_governor_conservative,
                &df_governor_userspace,       &df_governor_performance, &df_governor_powersave,
                &df_governor_energy_aware,
        };
        struct replay rp = { .trace_name = "fuzz", .interval_usec = 1000, .energy_known = true };
        struct df_device *d = NULL;
        FILE *in;

        if (!devnull)
                LLVMFuzzerInitialize(NULL, NULL);
        if (size < 1)
                return 0;
        if (df_device_new("fuzz", DF_MODE_GOVERN, &d) < 0)
                return 0;
        if (replay_add_opps(d, "100MHz@800mV,200MHz@850mV,400MHz@900mV,800MHz@1V") != 0)
                abort();
        (void) df_device_set_governor(
                d, governors[(data[0] & 0x7f) % (sizeof(governors) / sizeof(governors[0]))]);
        if (df_device_start(d, 800000000, 0) < 0)
                abort();
        rp.dev = d;
        in = fmemopen((void *) (data + 1), size - 1 ? size - 1 : 1, "r");
        if (in && (data[0] & 0x80)) {
                /* A tenth of the tool's bound on the optimum's search keeps every run short here. */
                static const struct work_options wo = {
                        .static_power = 0.1L,
                        .summary = true,
                        .optimum = true,
                        .optimum_max_states = WORK_OPTIMUM_MAX_STATES / 10,
                };
                if (few_digits(data + 1, size - 1))
                        (void) work_stream(&rp, &wo, in, devnull);
        } else if (in) {
                if (replay_stream(&rp, in, devnull) == 0)
                        (void) replay_print_summary(&rp, devnull);
        }
        if (in)
                fclose(in);
        df_device_free(d);
        return 0;
}
