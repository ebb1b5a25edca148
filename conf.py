"""Sphinx configuration of the runnable PyTorch 2 cheat sheet (source directory: docs/)."""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).parent.resolve()
sys.path.insert(0, str(ROOT / "docs" / "_ext"))

import notebooks  # each page's notebook: Markdown text, an install cell that keeps Colab's torch
import sitebuild  # this site's build hooks, found through the path above
from cheatsheet._variables import read

# -- Project information -----------------------------------------------------

project = "PyTorch 2 runnable cheat sheet"
author = "The cheat sheet authors"
copyright = "2026, the cheat sheet authors"

# -- General configuration ---------------------------------------------------

extensions = [
    "configcheck",  # a name one slip from a configuration value stops the build
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "myst_parser",
    "sphinx_copybutton",
    "sphinx_gallery.gen_gallery",
    "sphinx.ext.intersphinx",
    "sphinx_codeautolink",  # links names in Markdown code blocks; the gallery links its own
    "codelinks",  # ...on every page a rebuild writes, not only on those it counted as changed
    "sphinx.ext.githubpages",  # .nojekyll, or GitHub Pages drops _static/ and _images/
    "sphinx_sitemap",
    "notfound.extension",
    "sphinxext.opengraph",
    "sitebuild",  # the build command, page order, entry links, the footer line
    "pageinputs",  # every page runs again when what every page depends on changed
    "pagerecords",  # what each page measured, beside it and in the site's _records/
    "shards",  # a merge of shards fails on a page with no output instead of rendering it empty
    "freshpage",  # each example page runs in a process of its own
    "notebooks",  # the notebooks' text through pandoc, each page's install cell
    "blockexec",  # how each code block runs: torchrun scripts under torchrun
    "machines",  # results recorded on other machines, beside the live ones
    "since",  # from which torch release each entry works, from the version records
    "wordings",  # an errors entry's message as other releases printed it, from the records
    "tasksearch",  # search results down to the entry, as the reader types
    "searchentries",  # Sphinx's own search keeps every page's index entries across rebuilds
    "tablewidths",  # Summary tables state their column widths: they hold still as pages load
    "thumbnails",  # the gallery indexes load no thumbnail: their grid is hidden
    "pageassets",  # sphinx-gallery's tag script and HTML-output styles only where used
    "feedback",  # "report a problem" on every page and entry, "suggest an entry" in search
    "usedin",  # under each reference entry the entries that call its API; the API index
]
root_doc = "index"
# The torch releases the version records cover (results/*-torch-<release>/), oldest first:
# a since after a release missing from the records is written as an upper bound.
since_releases = ("2.4.1", "2.5.1", "2.6.0", "2.7.1", "2.8.0", "2.9.1", "2.10.0", "2.11.0",
                  "2.12.1", "2.13.0", "2.14.1", "2.15.0")  # fmt: skip
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
    # Drafting aid: CHEATSHEET_RUN_ONLY=<regex of paths> runs only the examples it
    # matches; the others keep their last output (docs/_ext/freshpage.py applies it).
    # The published build never sets it. A merge of shards (docs/_ext/shards.py) runs
    # none: every page's output comes from one.
    "filename_pattern": r"(?!)" if read("CHEATSHEET_MERGE") else r".*",
    "subsection_order": [
        "../examples/basics",
        "../examples/errors",
        "../examples/pytorch2",
        "../examples/reference_tensors",
        "../examples/reference_nn",
        "../examples/reference_tools",
        "*",
    ],
    "within_subsection_order": "sitebuild.HeaderOrder",
    # Each page runs in a process of its own (freshpage.py); pagestate seeds it, makes
    # shown warnings errors, and puts back after the page what its record reads.
    "reset_modules": ("matplotlib", "pagestate.reset_state"),
    "reset_modules_order": "both",
    # SVG on a transparent background: sharp at any width, dark in dark mode.
    "image_scrapers": ("plotscraper.svg_scraper",),
    # The gallery's front page offers every page at once: one archive of the scripts and
    # one of the notebooks, as sphinx-gallery makes them.
    "download_all_examples": True,
    "remove_config_comments": True,
    # Its stylesheets for Binder badges and pandas tables style nothing here (no page has
    # either); the rendered-HTML one styles the tables pages print as HTML.
    "css": ("sg_gallery", "sg_gallery-rendered-html"),
    "show_signature": False,
    # Its execution-time pages load jQuery and DataTables from CDNs; the site loads
    # nothing from outside. Each page still shows its own run time.
    "write_computation_times": False,
    # Notebook text goes through pandoc, from reStructuredText to the Markdown Jupyter and
    # Colab show; docs/_ext/notebooks.py gives it this site's reader, filter and links.
    "pypandoc": True,
}

# -- Links to PyTorch's documentation ---------------------------------------

# Every torch name in code links to its page for the torch this site is built with.
# The inventory is kept in the repository (docs/_ext/torch_inventory.py writes it from
# PyTorch's documentation sources), so the build reads nothing from the network.
torch_docs_url = "https://docs.pytorch.org/docs/{}.{}/".format(
    *metadata.version("torch").split(".")[:2]
)
# sphinx-gallery links the code of its pages itself; codeautolink links the Markdown
# pages' code. The gallery's pages are the site's only reStructuredText files.
rst_prolog = ".. autolink-skip:: file\n"
intersphinx_mapping = {"torch": (torch_docs_url, str(ROOT / "docs" / "_inventories" / "torch.inv"))}

# -- Copy button -------------------------------------------------------------

# Copying a ">>> "/"... " or "$ " block yields only the code, without prompts or output.
copybutton_prompt_text = r">>> |\.\.\. |\$ "
copybutton_prompt_is_regexp = True
copybutton_only_copy_prompt_lines = True
copybutton_remove_prompts = True

# -- Hosting -----------------------------------------------------------------

# The one place the repository is named: the header link and, for a local build,
# the address of the published site (its GitHub Pages) derive from it.
repository_url = "https://github.com/pytorch2-cheatsheet/pytorch2-cheatsheet"
# Each page's notebook starts by installing what Colab lacks: the helper package, from
# the repository, and the optional packages the page imports (docs/_ext/notebooks.py adds
# those). Never torch: Colab's own CUDA build meets the helper package's torch>=2.4, and
# an entry that needs a newer torch says so on its page.
notebook_requirements = [f"cheatsheet @ git+{repository_url}"]
# The landing page tells a reader who copies a snippet how to install the same package.
myst_substitutions["helper_install"] = f'`pip install "{notebook_requirements[0]}"`'
sphinx_gallery_conf["first_notebook_cell"] = notebooks.install_cell(notebook_requirements)
# "Open in Colab" on every page opens its notebook from the repository's `notebooks`
# branch, which the deploy workflow fills with the notebooks it publishes with the site.
_owner, _name = urlsplit(repository_url).path.strip("/").split("/")[:2]
colab_base = f"https://colab.research.google.com/github/{_owner}/{_name}/blob/notebooks/"
# The deploy workflow and Read the Docs pass the address they publish at.
html_baseurl = sitebuild.site_url(repository_url)
sitemap_url_scheme = "{link}"
# The 404 page links its styles from the site's root, so it works at any depth.
notfound_urls_prefix = urlsplit(html_baseurl).path
notfound_context = {
    "title": "Page not found",
    "body": (
        "<h1>Page not found</h1><p>This address is not a page of the cheat sheet. "
        'Start from the <a href="' + notfound_urls_prefix + '">landing page</a> '
        "or search.</p>"
    ),
}
ogp_site_url = html_baseurl
ogp_site_name = "PyTorch 2 runnable cheat sheet"
# Cards are a PNG per page drawn with matplotlib: slow to build, and they show only titles.
ogp_social_cards = {"enable": False}

# -- HTML output -------------------------------------------------------------

html_theme = "pydata_sphinx_theme"
html_title = "PyTorch 2 cheat sheet"
html_static_path = ["docs/_static"]
html_favicon = "docs/_static/favicon.svg"  # without one, every visit asks for /favicon.ico in vain
templates_path = ["docs/_templates"]
# "Built on <date> with torch <version> on <machine>", in every page's footer.
html_context = {"build_line": sitebuild.build_line(), "colab_base": colab_base}
# icons.css draws the theme's icons, so no page downloads the icon fonts; a11y.css gives
# back the names that the theme's and sphinx-gallery's styles hide from screen readers.
html_css_files = ["cheatsheet.css", "icons.css", "a11y.css", ("print.css", {"media": "print"})]
# a11y.js puts output boxes and plots that scroll sideways in the keyboard's tab order.
html_js_files = [("a11y.js", {"defer": "defer"})]
html_show_sourcelink = False
html_copy_source = False
html_theme_options = {
    "navigation_with_keys": True,
    "show_toc_level": 2,
    "navbar_align": "left",
    # A gallery page's download links sit above its entries instead of in a note
    # (the component shows nothing on the other pages).
    "secondary_sidebar_items": ["sg_download_links", "colab-link", "page-toc"],
    "footer_start": ["copyright", "build-line", "feedback-link"],
    "footer_end": ["sphinx-version"],
    "github_url": repository_url,
    "header_links_before_dropdown": 6,
    # The search field as a button keeps the header on one row.
    "navbar_persistent": ["search-button"],
}
html_sidebars = {"index": [], "quickref": []}

# -- Nitpicky ----------------------------------------------------------------

nitpicky = True
# No inventory for numpy and matplotlib; torch names outside the inventory (built-in
# types, tensor attributes, private modules) stay plain text.
nitpick_ignore_regex = [
    (r"py:.*", r"(torch|matplotlib|numpy)(\..*)?"),
    (r"py:class", r"(callable|optional|sequence|tuple|list|dict|str|int|float|bool)"),
]
