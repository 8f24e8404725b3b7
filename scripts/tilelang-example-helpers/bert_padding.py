"""Padding helpers that TileLang's varlen attention examples import.

TileLang's examples/flash_attention folder ships a ``bert_padding`` module (from
flash-attn) beside its programs; the programs kept as test data do not carry it.
This is tile's own implementation of the two functions they call, with the same
signatures and results, so that ``scripts/run-tilelang-examples.py`` can run those
programs (it puts this folder after the program's own on PYTHONPATH).
"""

import torch


def unpad_input(hidden_states, attention_mask):
    """``hidden_states`` (batch, seqlen, ...) and a (batch, seqlen) mask of the
    tokens to keep: returns (the kept tokens as (total, ...), their flat indices
    into batch * seqlen, cu_seqlens (int32, batch + 1 entries from 0) and the
    longest sequence's length)."""
    lengths = attention_mask.sum(dim=-1, dtype=torch.int32)
    indices = torch.nonzero(attention_mask.flatten(), as_tuple=False).flatten()
    max_seqlen = int(lengths.max().item()) if lengths.numel() else 0
    cu_seqlens = torch.zeros(lengths.numel() + 1, dtype=torch.int32,
                             device=attention_mask.device)
    cu_seqlens[1:] = torch.cumsum(lengths, dim=0, dtype=torch.int32)
    flat = hidden_states.reshape(-1, *hidden_states.shape[2:])
    return flat[indices], indices, cu_seqlens, max_seqlen


def pad_input(hidden_states, indices, batch, seqlen):
    """The inverse of unpad_input: (total, ...) tokens back to (batch, seqlen,
    ...), zeros where the mask was false."""
    out = torch.zeros(batch * seqlen, *hidden_states.shape[1:],
                      dtype=hidden_states.dtype, device=hidden_states.device)
    out[indices] = hidden_states
    return out.reshape(batch, seqlen, *hidden_states.shape[1:])
