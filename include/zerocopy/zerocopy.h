/* SPDX-License-Identifier: Apache-2.0 */
/* zerocopy: move data between host and NVIDIA GPUs with as few copies as possible.
 * The umbrella header: include this one. */
#ifndef ZEROCOPY_ZEROCOPY_H
#define ZEROCOPY_ZEROCOPY_H

#include "zerocopy/version.h"
#include "zerocopy/status.h"
#include "zerocopy/clock.h"
#include "zerocopy/stats.h"
#include "zerocopy/size.h"
#include "zerocopy/file.h"
#include "zerocopy/text.h"
#include "zerocopy/json_limits.h"
#include "zerocopy/device.h"
#include "zerocopy/bench.h"
#include "zerocopy/advise.h"
#include "zerocopy/buffer.h"
#include "zerocopy/pool.h"
#include "zerocopy/blocks.h"
#include "zerocopy/ring.h"
#include "zerocopy/ring_budget.h"
#include "zerocopy/stream.h"
#include "zerocopy/device_list.h"
#include "zerocopy/trace.h"
#include "zerocopy/run.h"

#endif
