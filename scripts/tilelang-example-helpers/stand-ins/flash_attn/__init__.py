"""A stand-in for flash-attn's ``flash_attn_varlen_func``, the reference that
TileLang's varlen attention example checks against.

``scripts/run-tilelang-examples.py`` puts this folder on PYTHONPATH only where
flash-attn itself is not installed (the GPU machine has none). It computes the
same function with torch's scaled_dot_product_attention, one sequence at a time,
so the example's check compares tile's kernel with an independent reference. Its
timings are not FlashAttention-2's: the example's "FA2" figures then time this.
"""

import sys

import torch
import torch.nn.functional as F

print("flash_attn stand-in (tile's, torch SDPA per sequence): the 'FA2' figures time it, "
      "not FlashAttention-2", file=sys.stderr)


def flash_attn_varlen_func(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k,
                           dropout_p=0.0, softmax_scale=None, causal=False, **unsupported):
    """q (total_q, heads, dim), k and v (total_k, kv_heads, dim), sequence i
    at rows cu_seqlens[i]:cu_seqlens[i+1]; causal masks align at the bottom
    right (query row r of a q-long sequence sees keys up to r + k_len - q_len),
    as flash-attn 2.1 and later do."""
    if dropout_p != 0.0 or unsupported:
        raise NotImplementedError("the flash_attn stand-in computes dropout_p=0 and "
                                  "softmax_scale/causal only")
    out = torch.empty_like(q)
    heads, kv_heads = q.shape[1], k.shape[1]
    for i in range(cu_seqlens_q.numel() - 1):
        q0, q1 = int(cu_seqlens_q[i]), int(cu_seqlens_q[i + 1])
        k0, k1 = int(cu_seqlens_k[i]), int(cu_seqlens_k[i + 1])
        qi = q[q0:q1].transpose(0, 1)
        ki = k[k0:k1].transpose(0, 1).repeat_interleave(heads // kv_heads, dim=0)
        vi = v[k0:k1].transpose(0, 1).repeat_interleave(heads // kv_heads, dim=0)
        mask = None
        if causal:
            rows = torch.arange(q1 - q0, device=q.device)[:, None]
            cols = torch.arange(k1 - k0, device=q.device)[None, :]
            mask = cols <= rows + (k1 - k0) - (q1 - q0)
        out[q0:q1] = F.scaled_dot_product_attention(
            qi, ki, vi, attn_mask=mask, scale=softmax_scale).transpose(0, 1)
    return out
