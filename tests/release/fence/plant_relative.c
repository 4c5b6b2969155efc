/* SPDX-License-Identifier: Apache-2.0 */
/* Planted: ring reaching up into stream's internals by a relative path, which no include
 * path names and a check of include lines by their part prefix cannot see. */
#include "../../../src/stream/engine_internal.h"
