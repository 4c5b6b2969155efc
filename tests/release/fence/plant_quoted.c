/* SPDX-License-Identifier: Apache-2.0 */
/* Planted: ring reaching up into stream's internals, spelled from the source folder. */
#include "stream/engine_internal.h"
