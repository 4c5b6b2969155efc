/* SPDX-License-Identifier: Apache-2.0 */
/* conf_async_reuse on the runtime linked as a shared library (libcudart.so), which finds the
 * driver's entry points for itself, as a program built with -cudart shared or a framework does. */
#define CONF_NAME "conf_async_reuse_shared"
#include "conf_async_reuse.cu"
