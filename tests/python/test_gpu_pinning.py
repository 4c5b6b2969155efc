# SPDX-License-Identifier: Apache-2.0
"""Pinned memory for a PyTorch user on a GPU machine: a torch CPU tensor registered in place
(torch sees it pinned until the buffer is closed) and pin_memory's pinned copies of torch
tensors and numpy arrays, each living as long as the copy does."""
import gc

import numpy as np
import pytest

import zerocopy

MIB = 1 << 20


def test_torch_tensor_registered_in_place(torch):
    # 4 MiB: a tensor of its own pages, so that no other registration shares one.
    t = torch.arange(MIB, dtype=torch.float32)
    address = t.data_ptr()
    assert not t.is_pinned()
    buf = zerocopy.register(t)
    assert buf.kind == "registered" and buf.host_ptr == address and buf.size == t.nbytes
    assert t.is_pinned()
    assert t.data_ptr() == address and torch.equal(t, torch.arange(MIB, dtype=torch.float32))
    gpu = t.to("cuda", non_blocking=True)
    torch.cuda.synchronize()
    assert torch.equal(gpu.cpu(), t)
    buf.close()
    gc.collect()
    assert not t.is_pinned()  # unregistered: pageable again, the data its own
    assert t[MIB - 1].item() == float(MIB - 1)


def test_torch_parameter_registered_in_place_and_copied(torch):
    # A model's CPU weights require grad; torch's DLPack refuses them, their detach() is read.
    weight = torch.nn.Parameter(torch.randn(1024, 1024))
    with zerocopy.register(weight) as buf:
        assert buf.host_ptr == weight.data_ptr() and weight.is_pinned()
    pinned = zerocopy.pin_memory(weight)
    assert pinned.is_pinned() and not pinned.requires_grad and torch.equal(pinned, weight.detach())


def test_torch_refusals(torch):
    with pytest.raises(ValueError, match="already GPU memory"):
        zerocopy.register(torch.zeros(1024, device="cuda"))
    with pytest.raises(ValueError, match="already GPU memory"):
        zerocopy.pin_memory(torch.zeros(1024, device="cuda"))
    with pytest.raises(ValueError, match="not contiguous: pin .contiguous"):
        zerocopy.register(torch.zeros(512, 512).t())
    with pytest.raises(ValueError, match="empty"):
        zerocopy.register(torch.zeros(0))


@pytest.mark.parametrize("dtype,shape", [("float32", (MIB,)), ("bfloat16", (512, 1024)),
                                         ("float16", (1000, 3)), ("int64", (4096,)),
                                         ("uint8", (3, 5, 7)), ("bool", (4096,))])
def test_pin_memory_of_a_torch_tensor(torch, dtype, shape):
    dtype = getattr(torch, dtype)
    source = (torch.randn(shape) * 100).to(dtype)
    expected = source.clone()
    pinned = zerocopy.pin_memory(source)
    assert isinstance(pinned, torch.Tensor) and pinned.device.type == "cpu"
    assert pinned.dtype == dtype and pinned.shape == source.shape and pinned.is_contiguous()
    assert pinned.data_ptr() != source.data_ptr() and torch.equal(pinned, expected)
    assert pinned.is_pinned()  # torch 2.11 on the H100: True (docs/python.md)
    assert zerocopy.pointer_info(pinned).kind == "pinned"
    del source
    gc.collect()
    gpu = torch.empty(shape, dtype=dtype, device="cuda")
    gpu.copy_(pinned, non_blocking=True)
    torch.cuda.synchronize()
    assert torch.equal(gpu.cpu(), expected)


def test_pin_memory_of_a_strided_tensor_is_contiguous(torch):
    source = torch.randn(256, 384).t()
    pinned = zerocopy.pin_memory(source, kind="mapped")
    assert pinned.shape == (384, 256) and pinned.is_contiguous() and torch.equal(pinned, source)
    assert zerocopy.pointer_info(pinned).kind == "mapped"


def test_pinned_copy_lives_as_long_as_the_tensor(torch):
    gc.collect()  # what earlier tests left goes now, not in the middle of this one
    pinned = zerocopy.pin_memory(torch.arange(MIB, dtype=torch.int32))
    before = zerocopy.totals().pinned_bytes
    view = pinned[1:]
    del pinned
    gc.collect()
    assert view[MIB - 2].item() == MIB - 1  # the buffer lives while any view of it does
    assert zerocopy.totals().pinned_bytes == before
    del view
    gc.collect()
    assert zerocopy.totals().pinned_bytes <= before - 4 * MIB  # freed with the last of them


def test_non_blocking_copy_from_the_pinned_copy_is_asynchronous(torch):
    # A large copy queued behind a long kernel: the host gets control back before either ends,
    # which torch does only for a pinned source.
    pinned = zerocopy.pin_memory(torch.ones(64 * MIB // 4))
    gpu = torch.empty_like(pinned, device="cuda")
    torch.cuda.synchronize()
    torch.cuda._sleep(200_000_000)  # about 0.1 s of GPU cycles on this class of GPU
    gpu.copy_(pinned, non_blocking=True)
    queued = torch.cuda.current_stream().query()
    torch.cuda.synchronize()
    assert not queued and gpu.sum().item() == pinned.numel()


def test_pin_memory_of_a_numpy_array(gpu):
    source = np.arange(64 * 1024, dtype=np.float64).reshape(64, 1024)
    pinned = zerocopy.pin_memory(source, device=gpu)
    assert isinstance(pinned, np.ndarray) and pinned.dtype == source.dtype
    assert pinned.shape == source.shape and np.array_equal(pinned, source)
    assert zerocopy.pointer_info(pinned).kind == "pinned"
    source[:] = 0  # a copy: the source is its own
    assert pinned[63, 1023] == 64 * 1024 - 1


def test_numpy_array_registered_in_place_as_before(gpu):
    arr = np.arange(MIB, dtype=np.uint8)
    with zerocopy.register(arr, device=gpu) as buf:
        assert buf.kind == "registered" and buf.host_ptr == arr.ctypes.data
        assert zerocopy.pointer_info(arr).kind == "registered"
