/* SPDX-License-Identifier: Apache-2.0 */
/* Planted: the CLI reaching into the library's internals instead of its public headers (its
 * include folders hold none, so by a relative path). */
#include "../../../src/core/error.h"
