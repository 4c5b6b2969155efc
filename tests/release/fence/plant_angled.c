/* SPDX-License-Identifier: Apache-2.0 */
/* Planted: ring reaching up into stream's internals, spelled as a system header. */
#include <stream/engine_internal.h>
