"""Sphinx configuration of the runnable PyTorch 2 cheat sheet (source directory: docs/)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).parent.resolve()
sys.path.insert(0, str(ROOT / "docs" / "_ext"))

import sitebuild  # this site's build hooks, found through the path above

# -- Project information -----------------------------------------------------

project = "PyTorch 2 runnable cheat sheet"
author = "The cheat sheet authors"
copyright = "2026, the cheat sheet authors"

# -- General configuration ---------------------------------------------------

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "myst_parser",
    "sphinx_copybutton",
    "sphinx_gallery.gen_gallery",
    "sitebuild",
]
root_doc = "index"
stamp_pages = ["index"]

# -- autodoc and napoleon (the helper package's reference) ---------------------

autodoc_typehints = "none"  # the numpy docstrings carry the types, in words
autodoc_member_order = "bysource"
napoleon_google_docstring = False
napoleon_use_rtype = False

# -- MyST --------------------------------------------------------------------

myst_enable_extensions = ["colon_fence", "deflist", "substitution"]
myst_heading_anchors = 3
# The landing page states how many reference entries there are; counted, not typed.
myst_substitutions = {"api_entries": str(sitebuild.count_api_entries(ROOT / "examples"))}

# -- sphinx-gallery ----------------------------------------------------------

sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "gallery",
    # Every file in examples/ is executed: no name decides whether a page runs.
    "filename_pattern": r".*",
    "ignore_pattern": r"__init__\.py",
    "subsection_order": [
        "../examples/basics",
        "../examples/pytorch2",
        "../examples/reference_tensors",
        "../examples/reference_nn",
        "../examples/reference_tools",
        "*",
    ],
    "within_subsection_order": "sitebuild.HeaderOrder",
    # Every page starts from the state the first one found and leaves nothing
    # behind, not even for the pages the build renders after the gallery.
    "reset_modules": ("matplotlib", "sitebuild.reset_state"),
    "reset_modules_order": "both",
    "capture_repr": ("_repr_html_", "__repr__"),
    "image_scrapers": ("matplotlib",),
    "matplotlib_animations": False,
    "download_all_examples": False,
    "remove_config_comments": True,
    "show_memory": False,
    "show_signature": False,
    "line_numbers": False,
    "min_reported_time": 0,
    # Its execution-time pages load jQuery and DataTables from CDNs; the site loads
    # nothing from outside. Each page still shows its own run time.
    "write_computation_times": False,
    "thumbnail_size": (400, 280),
}

# -- Copy button -------------------------------------------------------------

# Copying a ">>> "/"... " or "$ " block yields only the code, without prompts or output.
copybutton_prompt_text = r">>> |\.\.\. |\$ "
copybutton_prompt_is_regexp = True
copybutton_only_copy_prompt_lines = True
copybutton_remove_prompts = True

# -- HTML output -------------------------------------------------------------

html_theme = "pydata_sphinx_theme"
html_title = "PyTorch 2 cheat sheet"
html_static_path = ["docs/_static"]
html_css_files = ["cheatsheet.css"]
html_show_sourcelink = False
html_copy_source = False
html_theme_options = {
    "navigation_with_keys": True,
    "show_toc_level": 2,
    "navbar_align": "left",
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
    "header_links_before_dropdown": 6,
}
html_sidebars = {"index": [], "quickref": []}

# -- Nitpicky ----------------------------------------------------------------

nitpicky = True
# The build is offline, so there is no inventory for these projects' names.
nitpick_ignore_regex = [
    (r"py:.*", r"(torch|matplotlib|numpy)(\..*)?"),
    (r"py:class", r"(callable|optional|sequence|tuple|list|str|int|float|bool)"),
]
