"""noxfile.py's helpers that decide what the shared environment installs."""

from __future__ import annotations

import functools
import http.server
import threading

import noxfile
import pytest


def test_without_an_index_torch_comes_with_the_other_packages():
    asked = []
    assert noxfile._torch_from_index(None, asked.append) == ()
    assert noxfile._torch_from_index("", asked.append) == ()
    assert asked == []  # nothing to reach


def test_a_reachable_index_gives_the_pinned_release_from_it():
    index = "https://download.pytorch.org/whl/cpu"
    args = noxfile._torch_from_index(index, lambda url: True)
    assert args == ("--index-url", index, f"torch=={noxfile._pinned('torch')}")
    # No local label in the pin: the CPU build (2.14.1+cpu) satisfies constraints.txt.
    assert "+" not in args[-1]


def test_an_index_that_cannot_be_reached_falls_back_to_the_default():
    assert (
        noxfile._torch_from_index("https://download.pytorch.org/whl/cpu", lambda url: False) == ()
    )


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def test_reachable_asks_the_index_for_its_torch_page(tmp_path):
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "index.html").write_text("<a>torch-2.14.1+cpu.whl</a>")
    handler = functools.partial(_QuietHandler, directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        assert noxfile._index_reachable(url)
        assert noxfile._index_reachable(url + "/")
        assert not noxfile._index_reachable(url + "/nothing-here")
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("index", ["http://127.0.0.1:9/whl/cpu", "not a url"])
def test_an_index_that_is_not_there_is_not_reachable(index):
    assert not noxfile._index_reachable(index, timeout_s=5)


def test_an_older_installed_torch_gets_the_optional_packages_of_its_time():
    pinned = noxfile._pinned("torch")
    assert noxfile._era_packages(pinned + "+cu130") == ()  # constraints.txt has them
    era = noxfile._era_packages("2.4.1+cu121")
    assert era == noxfile.OPTIONAL_FOR_TORCH["2.4"]
    assert "torchao==0.4.0" in era
    assert noxfile._era_packages("2.99.0") == ()  # a release the table does not know
    assert {noxfile._name(r) for r in era} >= set(noxfile.OPTIONAL_PACKAGES)
    assert noxfile._name("onnx_ir>=0.1 ; python_version>'3'") == "onnx-ir"
