# SPDX-License-Identifier: Apache-2.0
"""The package's version: the C library's version it is written against (include/zerocopy/version.h)."""

__version__ = "0.1.0"
