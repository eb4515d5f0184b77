"""What every timing of `make bench` shares: waiting for the device to finish before the clock is read."""

from __future__ import annotations

import torch


def synchronize(device: torch.device) -> None:
    """Wait for the work queued on a CUDA device (nothing to wait for on the CPU)."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)
