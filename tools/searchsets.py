"""The search's tuning set: what readers type, and the section that answers each.

``QUERIES`` holds what readers type (not the headings) and the section that answers
each: the tuning set, the only queries the ranking was tuned on. A section is
``"page.html#anchor"`` where the entry has a stable label (``api-...``, ``basics-...``),
or ``("page.html", "words of its heading")`` where the page's headings are still moving.
``ASKED`` holds the words of questions readers asked that an entry was then written for.
``tests/test_search.py`` holds the site's search to both in Chromium, and
``benchmarks/search_engines.py`` runs ``QUERIES`` against Sphinx's own search and
Pagefind, beside the held-out sets (``tests/search_*.toml``), which nothing is tuned on.
``tools/search_dev.toml`` holds readers' own questions, with their sources, that the
ranking's weights and ``docs/search_synonyms.toml`` were tuned on (``--heldout
tools/search_dev.toml`` measures it): real phrasing to tune on, kept apart from the
held-out questions.
"""

from __future__ import annotations

import re

G = "gallery/"
BASICS = G + "basics/"
PT2 = G + "pytorch2/"
NN = G + "reference_nn/"
TENSORS = G + "reference_tensors/"
TOOLS = G + "reference_tools/"
ERRORS = G + "errors/"

QUERIES: dict[str, str | tuple[str, str]] = {
    "move model to gpu": BASICS + "tensor_basics.html#basics-move-device",
    "how do I check if cuda is available": BASICS + "tensor_basics.html#basics-check-cuda",
    "run on apple m1 gpu": (PT2 + "devices.html", "apple gpu"),
    "cuda out of memory": BASICS + "reproducibility_and_memory.html#basics-out-of-memory",
    "set random seed": BASICS + "reproducibility_and_memory.html#basics-seeds",
    "make results reproducible": BASICS + "reproducibility_and_memory.html#basics-seeds",
    "gradient clipping": BASICS + "training.html#basics-grad-clipping",
    "accumulate gradients over batches": BASICS + "training.html#basics-grad-accumulation",
    "dataloader num_workers": BASICS + "data_loading.html#basics-num-workers",
    "write my own dataset": BASICS + "data_loading.html#basics-dataset",
    "learning rate schedule": BASICS + "training.html#basics-lr-schedulers",
    "switch model to eval mode": BASICS + "training.html#basics-train-eval",
    "turn off gradients for inference": BASICS + "autograd.html#basics-no-grad",
    "save model weights": BASICS + "saving_and_loading.html#basics-state-dict",
    "resume training from checkpoint": BASICS + "saving_and_loading.html#basics-checkpoint",
    "load gpu model on cpu": BASICS + "saving_and_loading.html#basics-map-location",
    "convert tensor to numpy": BASICS + "numpy_interop.html#basics-to-numpy",
    "np.concatenate in pytorch": BASICS + "numpy_side_by_side.html#basics-np-joining",
    "pytorch version of np.repeat": BASICS + "numpy_side_by_side.html#basics-np-reshaping",
    "api index": "api_index.html#apis-and-where-they-are-used",
    "numpy array to tensor": BASICS + "numpy_interop.html#basics-from-numpy",
    "view vs reshape": BASICS + "indexing_and_reshaping.html#basics-view-vs-reshape",
    "concatenate two tensors": BASICS + "indexing_and_reshaping.html#basics-cat-stack",
    "freeze layers when fine-tuning": NN
    + "containers_and_modules.html#api-nn-module-requires-grad",
    "count model parameters": BASICS + "training_recipes.html#basics-count-parameters",
    "initialize weights xavier": TOOLS + "nn_utilities.html#api-nn-init",
    "one hot encode labels": TOOLS + "functional.html#api-f-one-hot",
    "loss for multi-class classification": NN + "losses.html#api-nn-crossentropyloss",
    "pad sequences of different lengths": TOOLS + "nn_utilities.html#api-pad-sequence",
    "get activations of an intermediate layer": TOOLS
    + "nn_utilities.html#api-register-forward-hook",
    "enable tf32": TOOLS + "profiling_and_runtime.html#api-set-float32-matmul-precision",
    "find where nan appears in backward": TOOLS + "autograd_api.html#api-detect-anomaly",
    "profile my model": TOOLS + "profiling_and_runtime.html#api-profiler-profile",
    "write a custom backward": TOOLS + "autograd_api.html#api-autograd-function",
    "channels_last": NN + "convolution_and_pooling.html#api-channels-last",
    "torch.utils.checkpoint": PT2
    + "activation_checkpointing.html#pt2-activation-checkpointing-block",
    "save only matmul outputs when checkpointing": PT2
    + "activation_checkpointing.html#pt2-activation-checkpointing-selective",
    "make adam step faster": PT2 + "optimizers.html#pt2-optimizers-speed",
    "lr scheduler with compiled optimizer recompiles": PT2
    + "optimizers.html#pt2-optimizers-lr-tensor",
    "fsdp": PT2 + "distributed.html#distributed-fsdp2",
    "train on multiple gpus": PT2 + "distributed.html#distributed-ddp",
    "launch with torchrun": (PT2 + "distributed.html", "torchrun"),
    "flash attention": (PT2 + "sdpa.html", "choosing a kernel"),
    "causal mask attention": (PT2 + "sdpa.html", "causal attention"),
    "kv cache": (PT2 + "attention_in_depth.html", "key/value cache"),
    "mixed precision training": (PT2 + "mixed_precision.html", "autocast on the cpu"),
    "float16 loss scaling": (PT2 + "mixed_precision.html", "gradscaler"),
    "torch.compile": (PT2 + "compile_essentials.html", "compile a module"),
    "graph breaks": (PT2 + "compile_internals.html", "graph breaks"),
    "per sample gradients": (PT2 + "torch_func.html", "per-sample gradients"),
    "create tensors on gpu by default": (PT2 + "default_device.html", "whole program"),
    "torch.zeros": TENSORS + "creation.html#api-torch-zeros",
    "torch.gather": TENSORS + "indexing.html#api-torch-gather",
    "top k values": TENSORS + "comparison_testing.html#api-torch-topk",
    "why is reserved memory larger than allocated": PT2 + "cuda_memory.html#pt2-cuda-memory-cache",
    "find what uses gpu memory at the peak": PT2 + "cuda_memory.html#pt2-cuda-memory-snapshot",
    "expandable segments fragmentation": PT2 + "cuda_memory.html#pt2-cuda-memory-alloc-conf",
    "combine fsdp with tensor parallel": PT2 + "parallelism.html#pt2-parallelism-tp-fsdp",
    "pipeline parallelism": PT2 + "parallelism.html#pt2-parallelism-pipeline",
    "attention with alibi bias": PT2 + "flex_attention.html#pt2-flex-attention-score-mod",
    "mask attention between packed documents": PT2
    + "flex_attention.html#pt2-flex-attention-documents",
    "batch sequences of different lengths without padding": PT2
    + "nested_jagged.html#pt2-nested-jagged-create",
    "compile a model to a .pt2 file": PT2 + "deployment.html#pt2-deployment-aoti",
    "export model to onnx": PT2 + "deployment.html#pt2-deployment-onnx",
    "torch.compile takes too long": PT2 + "compile_time.html#pt2-compile-time-regional",
    "reuse compile cache on another machine": PT2 + "compile_time.html#pt2-compile-time-mega-cache",
    "make cpu inference faster": PT2 + "cpu_inference.html#pt2-cpu-inference-stack",
    "how many threads on cpu": PT2 + "cpu_inference.html#pt2-cpu-inference-threads",
    "what changed in torch 2.14": PT2 + "whats_new.html#pt2-whats-new-behaviour",
    "closest orthogonal matrix": PT2 + "whats_new.html#pt2-whats-new-polar",
    "quantize linear layers to int8": PT2
    + "quantization_torchao.html#pt2-quantization-torchao-int8",
    # American spellings and plural forms (tasksearch.WORD_FORMS, SPELLING), the synonym
    # group of multiply and product, and reference entries that say the reader's words.
    "materialize a model created on the meta device": PT2
    + "default_device.html#pt2-default-device-to-empty",
    "multiply two matrices": BASICS + "math_and_reductions.html#basics-matmul",
    "stack a list of tensors": TENSORS + "joining_splitting.html#api-torch-stack",
    "remove a dimension of size 1": TENSORS + "shapes_and_views.html#api-torch-squeeze",
    "pad a tensor with zeros": TOOLS + "functional.html#api-f-pad",
    "check if two tensors are approximately equal": TENSORS
    + "comparison_testing.html#api-torch-allclose",
    "replace values where a condition is true": BASICS
    + "indexing_and_reshaping.html#basics-boolean-mask",
    "softmax over the last dimension": TOOLS + "functional.html#api-f-softmax",
    "convert a list to a tensor": TENSORS + "creation.html#api-torch-tensor",
    "apply a function to every sample in a batch": PT2 + "torch_func.html#pt2-torch-func-vmap",
    "vectorized function over a batch": PT2 + "torch_func.html#pt2-torch-func-vmap",
    "check if a tensor contains nan": TENSORS + "comparison_testing.html#api-torch-isnan",
    "evenly spaced numbers between two values": TENSORS + "creation.html#api-torch-linspace",
    "add a dimension of size one": TENSORS + "shapes_and_views.html#api-torch-unsqueeze",
    "pytorch get total number of elements in tensor": TENSORS
    + "predicates_and_defaults.html#api-torch-numel",
    "what dtype do I get adding int tensor and float tensor": TENSORS
    + "predicates_and_defaults.html#api-torch-result-type",
    "remove duplicate values from tensor": TENSORS + "comparison_testing.html#api-torch-unique",
    "how many parameters does my model have": BASICS
    + "training_recipes.html#basics-count-parameters",
    "invert a matrix": TENSORS + "linalg_fft.html#api-torch-linalg-inv",
    "random permutation of indices": TENSORS + "random_sampling.html#api-torch-randperm",
    "convert tensor to python list": TENSORS + "creation.html#api-torch-tensor-tolist",
    # "cost function" is a loss (a synonym group); "compile cost" is not.
    "which cost function for regression": BASICS
    + "nn_building_blocks.html#basics-regression-losses",
    # Four questions readers asked (found while labelling tests/search_questions.toml,
    # which left them out for want of an entry), each now answered by an entry.
    "weight tensor should be defined either for all 10 classes or no classes": ERRORS
    + "layer_and_loss_errors.html#errors-loss-weight-size",
    "different learning rate for each channel of a conv layer": BASICS
    + "training_recipes.html#basics-lr-per-channel",
    "gradient of the loss with respect to an intermediate feature map": PT2
    + "torch_func.html#pt2-torch-func-grad-intermediate",
    "torch.compile on windows Compiler: cl is not found": ERRORS
    + "compile_and_export_errors.html#errors-cl-not-found",
}


# Questions readers asked that the site had no entry for, in the words they were reported
# in; each now has an entry, and these words must find it in the top 3. Questions in the held-out
# sets (a reader's own title or pasted message) are measured there, not here.
ASKED = {
    "Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the same":
        ERRORS + "device_errors.html#errors-input-weight-device",
    "why torch.cuda.is_available() is False on a machine with a GPU":
        BASICS + "tensor_basics.html#basics-cuda-not-available",
    "src_mask versus src_key_padding_mask": BASICS + "nn_building_blocks.html#basics-transformer-masks",
    "a Jacobian per sample over a batch": PT2 + "torch_func.html#pt2-torch-func-batch-jacobian",
    "the cosine-similarity matrix of all pairs of rows":
        BASICS + "math_and_reductions.html#basics-cosine-similarity-matrix",
    "no kernel image is available for execution on the device":
        ERRORS + "device_errors.html#errors-no-kernel-image",
    "Address already in use with two jobs on one machine":
        ERRORS + "distributed_errors.html#errors-address-in-use",
    "torch.export Constraints violated inferred to be a constant":
        ERRORS + "compile_and_export_errors.html#errors-export-constraints-violated",
    "a different FlexAttention mask for each sequence of a batch":
        PT2 + "flex_attention.html#pt2-flex-attention-per-sequence",
    "FlexAttention with dropout": PT2 + "flex_attention.html#pt2-flex-attention-dropout",
    "activation checkpointing under DDP: Expected to mark a variable ready only once":
        ERRORS + "distributed_errors.html#errors-ddp-mark-ready-once",
    "why GPU 0 runs out of memory first with DataParallel":
        BASICS + "distributed_basics.html#basics-data-parallel-gpu0",
}  # fmt: skip


def hits(expected: str | tuple[str, str], results: list[dict[str, str]]) -> list[bool]:
    """For each result, whether it is the expected section."""

    def matches(result: dict[str, str]) -> bool:
        if isinstance(expected, str):
            return result["href"] == expected
        path, heading = expected
        plain = re.sub(r"[`\s]+", " ", result["title"]).lower()
        return result["href"].split("#")[0] == path and heading in plain

    return [matches(r) for r in results]
