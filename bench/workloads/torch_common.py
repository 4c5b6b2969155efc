# SPDX-License-Identifier: Apache-2.0
"""What the PyTorch workloads share: torch or a skip, deterministic data made quickly on the CPU,
the state dict of a decoder-like model, and the digest of tensors wherever they are."""
import workload


def torch_or_skip(name):
    """The torch module, or the workload's skip line (exit 0) when torch or a GPU is missing."""
    try:
        import torch
    except Exception as error:  # noqa: BLE001 - any reason torch cannot load here is a skip
        workload.skip(name, f"torch cannot be imported: {error}")
    if not torch.cuda.is_available():
        workload.skip(name, "torch sees no GPU")
    return torch


def random_base(torch, generator, dtype, elements=1 << 24):
    """A flat tensor of random values drawn from `generator`: normal values for floating types
    (as weights are), every byte value for uint8."""
    if dtype == torch.uint8:
        return torch.randint(0, 256, (elements,), dtype=torch.uint8, generator=generator)
    return torch.randn(elements, generator=generator).to(dtype)


def patterned(torch, shape, base, generator):
    """A tensor of `shape` filled from `base` from an offset drawn from `generator`, wrapping
    around: the same in every run, and made at the speed of a memory copy (drawing 750 million
    random values would take longer than the whole workload)."""
    out = torch.empty(shape, dtype=base.dtype)
    flat = out.view(-1)
    total, period = flat.numel(), base.numel()
    offset = int(torch.randint(0, period, (1,), generator=generator))
    done = 0
    while done < total:
        take = min(total - done, period - offset)
        flat[done:done + take].copy_(base[offset:offset + take])
        done += take
        offset = 0
    return out


def decoder_shapes(quick):
    """The names and shapes of a decoder-only model's weights, in state-dict order: hidden 2048,
    MLP 5632, grouped-query K/V of 1024, a 16000-token vocabulary and 15 layers, about 1.55 GB
    in bf16 (4 to 62.5 MiB a matrix, 4 KiB a norm); 2 layers with --quick (about 310 MB)."""
    hidden, mlp, kv, vocab = 2048, 5632, 1024, 16000
    layers = 2 if quick else 15
    shapes = [("model.embed_tokens.weight", (vocab, hidden))]
    for i in range(layers):
        p = f"model.layers.{i}."
        shapes += [
            (p + "self_attn.q_proj.weight", (hidden, hidden)),
            (p + "self_attn.k_proj.weight", (kv, hidden)),
            (p + "self_attn.v_proj.weight", (kv, hidden)),
            (p + "self_attn.o_proj.weight", (hidden, hidden)),
            (p + "mlp.gate_proj.weight", (mlp, hidden)),
            (p + "mlp.up_proj.weight", (mlp, hidden)),
            (p + "mlp.down_proj.weight", (hidden, mlp)),
            (p + "input_layernorm.weight", (hidden,)),
            (p + "post_attention_layernorm.weight", (hidden,)),
        ]
    shapes += [("model.norm.weight", (hidden,)), ("lm_head.weight", (vocab, hidden))]
    return shapes


def decoder_state_dict(torch, quick, seed=20261205):
    """The model's state dict on the CPU, in bf16, in pageable memory (as torch.load or a
    freshly built model gives it), the same bytes in every run."""
    generator = torch.Generator().manual_seed(seed)
    base = random_base(torch, generator, torch.bfloat16)
    return {name: patterned(torch, shape, base, generator)
            for name, shape in decoder_shapes(quick)}


def nbytes(tensors):
    return sum(t.numel() * t.element_size() for t in tensors)


def digest_tensors(torch, named):
    """The SHA-256 of (name, tensor) pairs in the given order: each tensor's bytes as the host
    reads them back (a device tensor is copied back first), with its name, shape and dtype."""
    digest = workload.Digest()
    for name, tensor in named:
        host = tensor.detach().contiguous().cpu().reshape(-1).view(torch.uint8)
        digest.add(f"{name} {tuple(tensor.shape)} {tensor.dtype}", host.numpy())
    return digest.hexdigest()
