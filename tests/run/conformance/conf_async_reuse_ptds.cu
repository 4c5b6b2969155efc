/* SPDX-License-Identifier: Apache-2.0 */
/* conf_async_reuse built with --default-stream per-thread (the folder's CMakeLists.txt gives the
 * flag to every conf_*_ptds): the runtime asks the driver for the _ptds and _ptsz copies, and
 * the "null" stream is the calling thread's own. */
#define CONF_NAME "conf_async_reuse_ptds"
#include "conf_async_reuse.cu"
