/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The libFuzzer entry points, also driven by tests/fuzz/standalone.c in make check. */
#pragma once

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);
