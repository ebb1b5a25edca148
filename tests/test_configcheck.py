"""docs/_ext/configcheck.py: a misspelt name in conf.py stops the build and names the one meant."""

from __future__ import annotations

import pytest
from sphinx.cmd.build import build_main

from configcheck import misspelt


def test_a_name_one_slip_from_a_declared_value_is_named_with_it():
    known = {"sphinx_gallery_conf", "html_theme", "html_title", "since_releases"}
    names = [
        "sphinx_gallery_cnf",
        "html_theme",
        "since_release",
        "ROOT",
        "torch_docs_url",
        "_owner",
    ]
    assert misspelt(names, known) == {
        "sphinx_gallery_cnf": "sphinx_gallery_conf",
        "since_release": "since_releases",
    }


def test_names_far_from_every_value_are_helpers_and_pass():
    assert misspelt(["colab_base", "torch_docs_url"], {"html_baseurl", "html_theme"}) == {}


@pytest.mark.parametrize(
    ("line", "fails"),
    [("html_tittle = 'x'", True), ("html_title = 'x'", False), ("tittle_words = 1", False)],
)
def test_a_build_with_a_misspelt_name_fails_saying_what_was_meant(tmp_path, capsys, line, fails):
    (tmp_path / "conf.py").write_text(f"extensions = ['configcheck']\n{line}\n")
    (tmp_path / "index.rst").write_text("Home\n====\n")
    status = build_main(["-q", "-b", "dummy", str(tmp_path), str(tmp_path / "_out")])
    err = capsys.readouterr().err
    assert (status != 0) is fails, err
    if fails:
        assert "html_tittle: did you mean html_title?" in err
