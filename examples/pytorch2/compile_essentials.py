r"""
torch.compile essentials
========================

Placeholder while the pipeline is tested.
"""

# %%
import torch

torch.ones(2)
