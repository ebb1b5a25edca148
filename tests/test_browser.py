"""The built site in a real Chromium: search, dark mode, keyboard, nothing fetched from outside."""

from __future__ import annotations

import re

import pytest

pytestmark = [pytest.mark.site, pytest.mark.browser]


def search(page, base_url: str, query: str) -> list[str]:
    """Return the result links Sphinx's own search shows for ``query``, best first."""
    page.goto(f"{base_url}/search.html?q={query}")
    page.wait_for_selector("#search-results ul.search li", timeout=20_000)
    hrefs = page.eval_on_selector_all(
        "#search-results ul.search li a:first-of-type",
        "els => els.map(e => e.getAttribute('href'))",
    )
    return [h.split("#")[0].split("?")[0] for h in hrefs]


def test_search_finds_the_attention_page(page, base_url):
    results = search(page, base_url, "scaled_dot_product_attention")
    assert "gallery/pytorch2/sdpa.html" in results[:3], results[:5]


@pytest.mark.parametrize("path", ["index.html", "gallery/pytorch2/sdpa.html", "search.html"])
def test_pages_load_nothing_from_outside(page, base_url, path):
    page.goto(f"{base_url}/{path}")
    page.wait_for_load_state("networkidle")
    assert page.outside_requests == []


def _background_luminance(page) -> float:
    rgb = page.evaluate(
        "getComputedStyle(document.body).backgroundColor.match(/\\d+/g).slice(0, 3).map(Number)"
    )
    return sum(c * w for c, w in zip(rgb, (0.2126, 0.7152, 0.0722), strict=True)) / 255


def test_dark_mode_switch(page, base_url):
    page.emulate_media(color_scheme="light")
    page.goto(f"{base_url}/index.html")
    page.locator("button.theme-switch-button:visible").click()
    page.locator("button.theme-change-button[data-mode=dark]:visible").click()
    assert page.get_attribute("html", "data-theme") == "dark"
    assert _background_luminance(page) < 0.3
    page.reload()  # the choice persists
    assert page.get_attribute("html", "data-theme") == "dark"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_first_visit_follows_the_system_without_errors(page, base_url, scheme):
    errors: list[str] = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.emulate_media(color_scheme=scheme)
    page.goto(f"{base_url}/index.html")  # a fresh context: nothing stored yet
    page.wait_for_load_state("networkidle")
    assert page.get_attribute("html", "data-mode") == "auto"
    assert page.get_attribute("html", "data-theme") == scheme
    assert errors == []


def test_light_mode_is_light(page, base_url):
    page.emulate_media(color_scheme="light")
    page.goto(f"{base_url}/index.html")
    assert _background_luminance(page) > 0.7


ICON_FILES = ("fontawesome", ".woff2", ".woff", ".ttf")


@pytest.mark.parametrize(
    "viewport", [{"width": 1440, "height": 900}, {"width": 390, "height": 844}]
)
def test_every_icon_has_a_shape_and_no_icon_font_loads(browser, base_url, viewport):
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    fetched: list[str] = []
    page.on("request", lambda request: fetched.append(request.url))
    page.goto(f"{base_url}/gallery/reference_tensors/creation.html")
    page.wait_for_load_state("networkidle")
    # An icon whose shape icons.css lacks computes no mask: it would show as nothing.
    shapeless = page.evaluate(
        """() => [...document.querySelectorAll('[class*="fa-"]')]
          .filter(el => getComputedStyle(el, '::before').maskImage === 'none')
          .map(el => el.className)"""
    )
    context.close()
    assert shapeless == []
    assert [url for url in fetched if any(part in url for part in ICON_FILES)] == []


def test_keyboard_reaches_the_content_first(page, base_url):
    page.goto(f"{base_url}/gallery/pytorch2/sdpa.html")
    page.keyboard.press("Tab")
    focused = page.evaluate("document.activeElement.textContent.trim().toLowerCase()")
    assert "skip to main content" in focused
    page.keyboard.press("Enter")
    assert page.evaluate("location.hash") == "#main-content"


def test_copy_button_strips_prompts(page, base_url):
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto(f"{base_url}/guides/run-locally.html")
    block = page.locator("div.highlight-console").first
    block.hover()
    block.locator("button.copybtn").click()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.startswith("python -m pip install -e .")
    assert "$" not in copied


def test_quick_reference_prints_without_navigation(page, base_url):
    page.goto(f"{base_url}/quickref.html")
    assert page.locator(".bd-header").first.is_visible()
    page.emulate_media(media="print")
    for chrome in (".bd-header", ".bd-sidebar-primary", ".bd-sidebar-secondary", ".bd-footer"):
        assert not page.locator(chrome).first.is_visible(), f"{chrome} is printed"
    assert page.locator("article table").first.is_visible()


API_NAMES = [
    "index_select",
    "inference_mode",
    "gather",
    "masked_select",
    "tensor_split",
    "frombuffer",
    "diagonal_scatter",
    "make_tensor",
    "matrix_rank",
    "quantize_per_tensor",
    "clip_grad_norm_",
    "pack_padded_sequence",
    "saved_tensors_hooks",
    "symbolic_trace",
    "custom_op",
    "randperm",
    "allow_in_graph",
    "set_float32_matmul_precision",
    "ModuleList",
    "AdaptiveMaxPool2d",
    "ReflectionPad2d",
    "RMSNorm",
    "GRUCell",
    "TransformerEncoderLayer",
    "CTCLoss",
    "tensordot",
    "mark_dirty",
    "TCPStore",
    "FlopCounterMode",
]


@pytest.mark.parametrize("name", API_NAMES)
def test_search_puts_the_api_entry_in_the_top_three(page, base_url, site, name):
    from bs4 import BeautifulSoup

    top = search(page, base_url, name)[:3]
    for href in top:
        soup = BeautifulSoup((site / href).read_text(encoding="utf-8"), "html.parser")
        if any(name in h.get_text() for h in soup.find_all(["h1", "h2", "h3"])):
            return
    pytest.fail(f"no page among the top three results for {name!r} has it as a heading: {top}")


# Every token class the highlighting style colours, read from the site's own stylesheet.
TOKEN_CLASS = re.compile(
    r'^html\[data-theme="(?:light|dark)"\] \.highlight \.([\w-]+) \{', re.MULTILINE
)

# For each class: one token in a code block of a real page, its colour and the colour of
# the first box behind it that paints a background, as the reader's browser renders them.
_TOKEN_COLOURS = """classes => {
  const block = document.createElement("div");
  block.className = "highlight";
  const pre = document.createElement("pre");
  block.append(pre);
  for (const name of classes) {
    const span = document.createElement("span");
    span.className = name;
    span.textContent = "token ";
    pre.append(span);
  }
  document.querySelector("main article").append(block);
  const rgba = text => {
    const [r, g, b, a = 1] = text.match(/[\\d.]+/g).map(Number);
    return [r, g, b, a];
  };
  // The backgrounds from the token down to the first opaque one, laid over each other.
  const behind = element => {
    const layers = [];
    for (let e = element; e; e = e.parentElement) {
      const colour = rgba(getComputedStyle(e).backgroundColor);
      if (colour[3] > 0) layers.push(colour);
      if (colour[3] === 1) break;
    }
    let under = [255, 255, 255];  // the canvas
    for (const [r, g, b, a] of layers.reverse()) {
      under = [r, g, b].map((c, i) => a * c + (1 - a) * under[i]);
    }
    return under;
  };
  return [...pre.children].map(s => [s.className, rgba(getComputedStyle(s).color), behind(s)]);
}"""


def _contrast(first: list[float], second: list[float]) -> float:
    """WCAG 2's contrast ratio of two sRGB colours (0 to 255 each)."""

    def luminance(colour: list[float]) -> float:
        linear = [c / 255 / 12.92 if c <= 10.31 else ((c / 255 + 0.055) / 1.055) ** 2.4
                  for c in colour]  # fmt: skip
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    light, dark = sorted((luminance(first), luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_code_token_colours_are_legible_in_both_modes(page, base_url, site, scheme):
    # The site walk's axe-core leaves the code's token spans out of its contrast rule;
    # this measures every colour the style has, on the page's real code background,
    # against WCAG's 4.5:1 for text of the code's small size.
    classes = sorted(set(TOKEN_CLASS.findall((site / "_static" / "pygments.css").read_text())))
    assert len(classes) > 40, "the highlighting style's token classes were not found"
    page.emulate_media(color_scheme=scheme)
    page.goto(f"{base_url}/gallery/basics/training.html")
    assert page.get_attribute("html", "data-theme") == scheme
    tokens = page.evaluate(_TOKEN_COLOURS, classes)
    # A token's own colour is opaque in both styles; its alpha would need compositing too.
    assert all(fg[3] == 1 for _, fg, _ in tokens), tokens
    low = {
        n: round(_contrast(fg[:3], bg), 2) for n, fg, bg in tokens if _contrast(fg[:3], bg) < 4.5
    }
    assert not low, f"token classes below 4.5:1 in {scheme} mode: {low}"
