/* SPDX-License-Identifier: Apache-2.0 */
/* Conversion of CUDA runtime errors into zerocopy statuses with a detail string. */
#include "device/cuda_check.h"

#include "device/driver_probe.h"

zc_status zc__cuda_error_to_status(cudaError_t error)
{
    switch (error) {
    case cudaSuccess:
        return ZC_OK;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInvalidDevice:
    case cudaErrorDevicesUnavailable:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
        return ZC_ERR_NO_DEVICE;
    case cudaErrorMemoryAllocation:
        return ZC_ERR_NO_MEMORY;
    case cudaErrorHostMemoryAlreadyRegistered:
        return ZC_ERR_OVERLAP;
    case cudaErrorHostMemoryNotRegistered:
        return ZC_ERR_NOT_BASE;
    case cudaErrorNotSupported:
        return ZC_ERR_UNSUPPORTED;
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
        return ZC_ERR_KERNEL;
    default:
        return ZC_ERR_CUDA;
    }
}

zc_status zc__cuda_status(cudaError_t error, const char *call, const char *file, int line)
{
    if (error == cudaSuccess)
        return ZC_OK;
    /* The failure is reported here and handled by the caller: take it out of the runtime's
     * last-error slot, so that a later launch check (cudaGetLastError) does not report it a
     * second time as the launch's. Sticky errors stay whatever is done. */
    (void)cudaGetLastError();
    /* No driver at all reads as "CUDA driver version is insufficient": the driver is asked why. */
    if (error == cudaErrorInsufficientDriver || error == cudaErrorNoDevice)
        return zc__driver_failure(error, call, file, line);
    return zc__fail(zc__cuda_error_to_status(error), file, line, "%s failed: %s (%s)", call,
                    cudaGetErrorName(error), cudaGetErrorString(error));
}
