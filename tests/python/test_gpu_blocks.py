# SPDX-License-Identifier: Apache-2.0
"""The block mover on a GPU from Python: blocks of a CUDA tensor and a pinned host tensor moved
both ways at once through every engine that can reach them, every byte checked against what
torch computes; zerocopy's own buffers planned without torch; an unpinned host tensor, a
strided one and GPU-side block numbers refused before anything moves."""
import os
import runpy
import sys

import pytest

import zerocopy

BLOCKS, BLOCK_BYTES, SWAP = 64, 4096, 24


def cache_and_pool(torch, blocks=BLOCKS, row=BLOCK_BYTES, pin=True):
    """A GPU tensor and a host tensor of blocks, each filled with its own random bytes."""
    gen = torch.Generator().manual_seed(50)
    host = torch.randint(0, 256, (blocks, row), dtype=torch.uint8, generator=gen)
    host = host.pin_memory() if pin else host
    device = torch.randint(0, 256, (blocks, row), dtype=torch.uint8, generator=gen).cuda()
    return device, host


def swap_lists(torch):
    """Block numbers both ways at once: no block is read by one direction and written by the
    other (the library refuses a source that overlaps a destination)."""
    perm = torch.randperm(BLOCKS, generator=torch.Generator().manual_seed(4))
    host_out, host_in = perm[:SWAP], perm[SWAP:2 * SWAP]  # host: read / written
    perm = torch.randperm(BLOCKS, generator=torch.Generator().manual_seed(5))
    dev_in, dev_out = perm[:SWAP], perm[SWAP:2 * SWAP]  # device: written / read
    return (host_out, dev_in), (dev_out, host_in)


def expected_after(torch, device, host, to_device, to_host):
    want_dev, want_host = device.clone(), host.clone()
    want_dev[to_device[1].cuda()] = host[to_device[0]].cuda()
    want_host[to_host[1]] = device[to_host[0].cuda()].cpu()
    torch.cuda.synchronize()
    return want_dev, want_host


@pytest.fixture
def mover(gpu):
    with zerocopy.Mover(device=gpu) as m:
        yield m


@pytest.mark.parametrize("engine", ["auto", "copy", "batch", "kernel"])
def test_both_ways_at_once_through_each_engine(torch, mover, engine):
    device, host = cache_and_pool(torch)
    to_device, to_host = swap_lists(torch)
    side = torch.cuda.Stream()
    try:
        mover.plan(device, host, to_device=to_device, to_host=to_host, engine=engine, stream=side)
    except zerocopy.UnsupportedError as e:
        pytest.skip(f"the {engine} engine cannot reach this memory here: {e.detail}")
    want_dev, want_host = expected_after(torch, device, host, to_device, to_host)
    side.wait_stream(torch.cuda.current_stream())
    choice = mover.move(device, host, to_device=to_device, to_host=to_host, engine=engine,
                        stream=side)
    side.synchronize()
    assert engine == "auto" or choice.engine == engine
    assert choice.engine in choice.reachable and choice.blocks == 2 * SWAP
    assert choice.bytes_to_device == choice.bytes_to_host == SWAP * BLOCK_BYTES
    assert torch.equal(device, want_dev), f"{choice.engine}: a device block differs"
    assert torch.equal(host, want_host), f"{choice.engine}: a host block differs"


def test_one_way_with_numpy_and_list_block_numbers(torch, mover):
    np = pytest.importorskip("numpy")
    device, host = cache_and_pool(torch)
    before = host.clone()
    src, dst = [3, 9, 27], np.array([0, 1, 63], np.int64)
    choice = mover.move(device, host, to_host=(src, dst), stream=torch.cuda.current_stream())
    torch.cuda.current_stream().synchronize()
    before[list(dst)] = device[src].cpu()
    assert torch.equal(host, before) and choice.blocks == 3


def test_a_bf16_cache_of_heads_tokens_and_dims(torch, mover):
    # A paged KV cache as an engine keeps it: block n is cache[n], [heads, tokens, dim] bf16.
    cache = torch.randn(16, 4, 16, 64, dtype=torch.bfloat16, device="cuda")
    pool = torch.zeros(32, 4, 16, 64, dtype=torch.bfloat16).pin_memory()
    mover.move(cache, pool, to_host=(torch.arange(16), torch.arange(16) * 2))
    torch.cuda.synchronize()
    assert torch.equal(pool[::2].cuda(), cache) and not pool[1::2].any()


def test_an_unpinned_host_tensor_is_refused_and_nothing_moves(torch, mover):
    device, host = cache_and_pool(torch, pin=False)
    before = device.clone()
    with pytest.raises(zerocopy.WrongKindError) as info:
        mover.move(device, host, to_device=([0, 1], [2, 3]))
    assert info.value.call == "zc_blocks_move" and info.value.detail
    assert isinstance(info.value, TypeError)
    torch.cuda.synchronize()
    assert torch.equal(device, before)


def test_strided_tensors_and_gpu_block_numbers_are_refused(torch, mover):
    device, host = cache_and_pool(torch)
    with pytest.raises(ValueError, match="device_blocks is not contiguous"):
        mover.move(device[:, : BLOCK_BYTES // 2], host, to_host=([0], [0]))
    with pytest.raises(TypeError, match="to_host's sources is GPU memory"):
        mover.move(device, host, to_host=(torch.tensor([0], device="cuda"), [0]))


def test_zerocopy_buffers_without_torch(gpu, mover):
    device = zerocopy.empty((BLOCKS, BLOCK_BYTES), "uint8", kind="device", device=gpu)
    pinned = zerocopy.empty((BLOCKS, BLOCK_BYTES), "uint8", kind="pinned", device=gpu)
    choice = mover.plan(device, pinned, to_device=(range(8), range(8, 16)))
    assert "copy" in choice.reachable and choice.engine in choice.reachable
    assert choice.bytes_to_device == 8 * BLOCK_BYTES and choice.bytes_to_host == 0
    # The legacy default stream (None) is one the batch engine never runs on.
    with pytest.raises(zerocopy.UnsupportedError):
        mover.plan(device, pinned, to_device=([0], [0]), engine="batch", stream=None)
    pageable = zerocopy.empty((BLOCKS, BLOCK_BYTES), "uint8", kind="pageable")
    with pytest.raises(zerocopy.WrongKindError):
        mover.plan(device, pageable, to_host=([0], [0]))
    with pytest.raises(zerocopy.OverlapError):  # two blocks written into one
        mover.plan(device, pinned, to_host=([0, 1], [5, 5]))


def test_the_kv_offload_example_runs(torch):
    # examples/kv_offload.py as a newcomer runs it, in this process (torch starts once).
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    argv, sys.argv = sys.argv, ["kv_offload.py", "--steps", "6"]
    try:
        with pytest.raises(SystemExit) as exit_info:
            runpy.run_path(os.path.join(root, "examples", "kv_offload.py"), run_name="__main__")
    finally:
        sys.argv = argv
    assert exit_info.value.code == 0
