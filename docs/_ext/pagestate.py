"""A fresh start for every page: the state each example runs from, and warnings as errors.

sphinx-gallery runs every page in the build's process and calls :func:`reset_state`
before and after each (``reset_modules`` in conf.py); ``freshpage.py`` also runs each
page in a process of its own. Together a page's output is what a reader gets running
that page alone.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging as pylogging
import os
import random
import sys
import types
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pagerecords import keep_record

#: Whether a warning a page (or a rank of its scripts) shows fails the build. Under a
#: torch older than the releases the records cover (``nox -s docs -- --installed-torch``
#: with an older one; ``since.py`` decides) that release's own deprecation warnings are
#: a fact about it, not a fault of the page: they are printed in the build's log.
warnings_fail_pages = True

# -- A fresh start for every page ------------------------------------------------

# Config modules whose switches a page may flip (torch.compile's knobs live here).
_CONFIG_MODULES = (
    "torch._dynamo.config",
    "torch._inductor.config",
    "torch._functorch.config",
    "torch.compiler.config",
    "torch.fx.experimental._config",
)
# What each page's process has imported before the page (freshpage.py imports them in
# the build before the first page): the configs the reset before each page reads. They import Dynamo, about 2 s on the 2-core
# machine, which every page's process would pay again.
PRELOAD = _CONFIG_MODULES
# Namespaces a page may monkey-patch (``torch.Tensor.foo = ...``, a replaced
# ``torch.nn.functional.relu``), as (module, attribute path).
_NAMESPACES = (
    ("torch", ""),
    ("torch", "Tensor"),
    ("torch.nn.functional", ""),
    ("torch.nn", "Module"),
    ("numpy", ""),
)
_AUTOCAST_DEVICES = ("cpu", "cuda", "mps", "xpu")


def _namespace(module: str, path: str) -> Any:
    found: Any = importlib.import_module(module)
    for name in filter(None, path.split(".")):
        found = getattr(found, name)
    return found


def _flush_denormal_enabled() -> bool:
    import torch

    # torch offers no getter; with flushing on, arithmetic turns a denormal into 0.
    return (torch.tensor([1e-323], dtype=torch.float64) * 1).item() == 0.0


def _torch_switches() -> list[tuple[Callable[[], Any], Callable[[Any], Any]]]:
    """Process-wide torch settings a page can change, as (read, write) pairs, in write order."""
    import torch

    backends = torch.backends

    def attribute(owner: Any, name: str) -> tuple[Callable[[], Any], Callable[[Any], Any]]:
        return (lambda: getattr(owner, name), lambda value: setattr(owner, name, value))

    def autocast(device: str) -> tuple[Callable[[], Any], Callable[[Any], Any]]:
        def read() -> tuple[bool, Any]:
            return torch.is_autocast_enabled(device), torch.get_autocast_dtype(device)

        def write(value: tuple[bool, Any]) -> None:
            torch.set_autocast_enabled(device, value[0])
            torch.set_autocast_dtype(device, value[1])

        return read, write

    def default_device() -> Any:
        try:
            device = torch.get_default_device()
        except AttributeError:  # torch 2.4, once set_default_device(None) ran: no default
            return None
        # "cpu" means no default set: setting it would install a torch-function
        # mode that slows every later call.
        return None if device.type == "cpu" else device

    def set_default_device(device: Any) -> None:
        # Only a change is written: under torch 2.4, set_default_device(None) breaks
        # get_default_device() for the rest of the process, a page's own calls included.
        if device != default_device():
            torch.set_default_device(device)

    # Each pair is made when read, and left out where this torch lacks it: a switch
    # newer than the build's torch (mkldnn's fp32_precision is 2.9's) is one no page of
    # that torch can change. An older torch builds the site too (--installed-torch).
    makers: list[Callable[[], tuple[Callable[[], Any], Callable[[Any], Any]]]] = [
        lambda: (torch.get_default_dtype, torch.set_default_dtype),
        lambda: (default_device, set_default_device),
        lambda: (torch.is_grad_enabled, torch.set_grad_enabled),
        lambda: (torch.get_num_threads, torch.set_num_threads),
        lambda: (
            lambda: (
                torch.are_deterministic_algorithms_enabled(),
                torch.is_deterministic_algorithms_warn_only_enabled(),
            ),
            lambda value: torch.use_deterministic_algorithms(value[0], warn_only=value[1]),
        ),
        lambda: (torch.is_warn_always_enabled, torch.set_warn_always),
        lambda: (
            lambda: (torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()),
            lambda value: torch.set_anomaly_enabled(*value),
        ),
        lambda: (_flush_denormal_enabled, torch.set_flush_denormal),
        lambda: (torch.is_autocast_cache_enabled, torch.set_autocast_cache_enabled),
        *(lambda device=device: autocast(device) for device in _AUTOCAST_DEVICES),
        # The legacy precision switches come before the fp32_precision ones that
        # replace them: once a page mixed the two APIs torch refuses to read them,
        # and writing all of them in this order makes them agree again.
        lambda: (torch.get_float32_matmul_precision, torch.set_float32_matmul_precision),
        lambda: attribute(backends.cudnn, "allow_tf32"),
        lambda: attribute(backends.cuda.matmul, "allow_tf32"),
        lambda: attribute(backends, "fp32_precision"),
        # (the fp32_precision namespaces are newer than torch's type stubs of them)
        lambda: attribute(backends.mkldnn.matmul, "fp32_precision"),  # type: ignore[attr-defined]
        lambda: attribute(backends.mkldnn.conv, "fp32_precision"),  # type: ignore[attr-defined]
        lambda: attribute(backends.mkldnn.rnn, "fp32_precision"),  # type: ignore[attr-defined]
        lambda: attribute(backends.cudnn.conv, "fp32_precision"),  # type: ignore[attr-defined]
        lambda: attribute(backends.cudnn.rnn, "fp32_precision"),
        lambda: attribute(backends.cuda.matmul, "fp32_precision"),
        lambda: attribute(backends.mkldnn, "enabled"),
        lambda: attribute(backends.mkldnn, "deterministic"),
        lambda: attribute(backends.cudnn, "enabled"),
        lambda: attribute(backends.cudnn, "deterministic"),
        lambda: attribute(backends.cudnn, "benchmark"),
        lambda: attribute(backends.cuda.matmul, "allow_fp16_reduced_precision_reduction"),
        lambda: attribute(backends.cuda.matmul, "allow_bf16_reduced_precision_reduction"),
        lambda: (backends.cuda.flash_sdp_enabled, backends.cuda.enable_flash_sdp),
        lambda: (backends.cuda.mem_efficient_sdp_enabled, backends.cuda.enable_mem_efficient_sdp),
        lambda: (backends.cuda.math_sdp_enabled, backends.cuda.enable_math_sdp),
        lambda: (backends.cuda.cudnn_sdp_enabled, backends.cuda.enable_cudnn_sdp),
        lambda: (
            backends.cuda.fp16_bf16_reduction_math_sdp_allowed,
            backends.cuda.allow_fp16_bf16_reduction_math_sdp,
        ),
        lambda: (backends.mha.get_fastpath_enabled, backends.mha.set_fastpath_enabled),
        lambda: attribute(backends.opt_einsum, "enabled"),
        lambda: attribute(backends.quantized, "engine"),
        lambda: (torch._tensor_str.get_printoptions, lambda value: torch.set_printoptions(**value)),
    ]
    global _PRESENT
    if _PRESENT is None:
        _PRESENT = tuple(_exists(make) for make in makers)
    return [make() for make, present in zip(makers, _PRESENT, strict=True) if present]


# Which of _torch_switches' pairs this torch has, read once, before any page could mix the
# precision APIs (after that, reading some of them raises): every later call, capture and
# restore alike, must see the same list.
_PRESENT: tuple[bool, ...] | None = None


def _exists(make: Callable[[], tuple[Callable[[], Any], Callable[[Any], Any]]]) -> bool:
    try:
        make()[0]()
    except (AttributeError, RuntimeError):  # a name, or a device, this torch does not have
        return False
    return True


@dataclass(frozen=True)
class PageState:
    """What one page can change that every later page, and the build, would inherit.

    Attributes
    ----------
    torch_switches : tuple
        The values of :func:`_torch_switches`: default dtype and device, grad mode,
        threads, determinism, anomaly mode, denormal flushing, autocast, matmul
        precision, ``torch.backends`` flags, print options.
    configs : dict
        ``get_config_copy()`` of each of ``_CONFIG_MODULES`` (dynamo, inductor, ...).
    namespaces : dict
        A copy of ``vars()`` of each of ``_NAMESPACES``, to undo monkey-patching.
    numpy_printoptions, numpy_errors : dict
        ``numpy.get_printoptions()`` and ``numpy.geterr()``.
    environ : dict
        A copy of ``os.environ``.
    warning_filters : tuple
        ``warnings.filters``.
    """

    torch_switches: tuple[Any, ...]
    configs: dict[str, dict[str, Any]]
    namespaces: dict[tuple[str, str], dict[str, Any]]
    numpy_printoptions: Any  # np.get_printoptions(): a typed dict of its own
    numpy_errors: Any  # np.geterr()
    environ: dict[str, str]
    warning_filters: tuple[Any, ...]

    @classmethod
    def capture(cls) -> PageState:
        """Record the current state."""
        import numpy as np

        return cls(
            torch_switches=tuple(read() for read, _ in _torch_switches()),
            configs={module.__name__: module.get_config_copy() for module in _config_modules()},
            namespaces={key: dict(vars(_namespace(*key))) for key in _NAMESPACES},
            numpy_printoptions=np.get_printoptions(),
            numpy_errors=np.geterr(),
            environ=dict(os.environ),
            warning_filters=tuple(warnings.filters),
        )

    def restore(self) -> None:
        """Put every recorded setting back, and undo what a page added or replaced."""
        import numpy as np

        with warnings.catch_warnings():
            # Writing a deprecated switch back must not warn into the next page.
            warnings.simplefilter("ignore")
            for (_, write), value in zip(_torch_switches(), self.torch_switches, strict=True):
                write(value)
            for name, saved in self.configs.items():
                _restore_config(importlib.import_module(name), saved)
        for key, saved in self.namespaces.items():
            _restore_namespace(_namespace(*key), saved)
        np.set_printoptions(**self.numpy_printoptions)
        np.seterr(**self.numpy_errors)
        for name in os.environ.keys() - self.environ.keys():
            del os.environ[name]
        for name, value in self.environ.items():
            if os.environ.get(name) != value:
                os.environ[name] = value
        # resetwarnings() also forgets which warnings were already shown once.
        warnings.resetwarnings()
        warnings.filters[:] = self.warning_filters  # type: ignore[index]  # a list at run time


def _restore_config(module: Any, saved: dict[str, Any]) -> None:
    current = module.get_config_copy()
    for name, value in saved.items():
        if current.get(name) != value:
            setattr(module, name, value)


_MISSING = object()


def _restore_namespace(owner: Any, saved: dict[str, Any]) -> None:
    current = dict(vars(owner))
    for name, value in current.items():
        # A submodule imported since is bound on its parent by the import system,
        # and removing it would break ``torch._inductor.config``-style lookups.
        if name not in saved and not isinstance(value, types.ModuleType):
            delattr(owner, name)
    for name, value in saved.items():
        if current.get(name, _MISSING) is not value:
            setattr(owner, name, value)


_start: PageState | None = None


def _config_modules() -> list[types.ModuleType]:
    """Those of ``_CONFIG_MODULES`` this torch has, imported (torch.compiler.config: 2.6)."""
    return [
        importlib.import_module(name)
        for name in _CONFIG_MODULES
        if importlib.util.find_spec(name) is not None
    ]


def reset_state(gallery_conf: dict[str, Any], fname: str | None, when: str) -> None:
    """Start every example from the same state, and leave nothing behind it.

    sphinx-gallery runs all examples in one interpreter and calls this before and
    after each (``reset_modules_order = "both"``). The first call records the
    state (:class:`PageState`); every call restores it and reseeds the random
    generators, so a page that changes a setting changes neither a later page nor
    what the build itself reports afterwards (the machine stamp's thread count).
    Before a page runs, every warning that would be shown becomes an error: a
    warning the page does not catch fails the build instead of being printed
    into the page. Warnings Python hides by default (a library's own
    ``DeprecationWarning``) stay hidden, as they are for a reader.
    """
    global _start
    import numpy as np
    import torch

    if _start is None:
        _start = PageState.capture()
    _start.restore()
    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)
    torch._dynamo.reset()
    _forget_old_main(torch)
    # A page that turned on TORCH_LOGS-style logging (recompiles, graph breaks)
    # would otherwise log into every later page.
    torch._logging.set_logs()
    # A CUDA build of torch on a machine without a GPU (this site's pinned wheel on
    # a CPU build machine) logs "No CUDA runtime is found, using CUDA_HOME=..." at
    # every C++ compile: a fact about the build machine, not about the page.
    pylogging.getLogger("torch.utils.cpp_extension").setLevel(pylogging.ERROR)
    if when == "before" and warnings_fail_pages:
        _raise_shown_warnings()
    keep_record(gallery_conf, fname, when)


def _forget_old_main(torch: Any) -> None:
    """Make Dynamo forget the ``__main__`` module of the page before.

    sphinx-gallery runs each page as a new ``__main__`` module. Dynamo (2.14) finds
    a module by name once and caches it (``_import_module``), and keeps an alias to
    it (``__import___main__``) in the globals of every frame it compiled, torch's
    own functions included; ``torch._dynamo.reset()`` forgets neither. The next
    page's guards would then read its globals from the old page's module
    (``AttributeError``), or Dynamo would refuse the alias (``AssertionError``).
    A reader's script or notebook has one ``__main__`` and never meets this.
    """
    import_module = getattr(torch._dynamo.symbolic_convert, "_import_module", None)
    clear = getattr(import_module, "cache_clear", None)
    if clear is not None:
        clear()
    for module in list(sys.modules.values()):
        namespace = getattr(module, "__dict__", None)
        if isinstance(namespace, dict):
            namespace.pop("__import___main__", None)


def _raise_shown_warnings() -> None:
    # Each filter that would print a warning raises it instead, and so does the
    # default action for a warning no filter matches; "ignore" filters stay.
    warnings.filters[:] = [  # type: ignore[index]  # a list at run time
        f if f[0] == "ignore" else ("error", *f[1:]) for f in warnings.filters
    ]
    warnings.simplefilter("error", append=True)  # also tells warnings the filters changed
