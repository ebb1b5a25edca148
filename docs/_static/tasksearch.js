/*
 * Search as you type, down to the entry: results appear under the search box while the
 * reader types, each linking to its section with that section's first sentence.
 *
 * Nothing is loaded until the reader types: then Sphinx's language_data.js (stop words
 * and the Snowball stemmer the build used) and _static/search-index.js (written by
 * docs/_ext/tasksearch.py) are added as script tags, which also work from file://.
 * Enter still submits the form to search.html, Sphinx's full-text search.
 */
"use strict";

const TaskSearch = (() => {
  // Words that say "I am asking" rather than what about.
  const FILLERS = new Set([
    "how", "do", "i", "can", "my", "pytorch", "want", "use", "using", "way", "what",
    "why", "when", "to", "a", "the", "in", "of", "with", "for", "on", "is", "and",
  ]);
  const MAX_RESULTS = 8;
  const DEBOUNCE_MS = 120;

  let index = null; // {pages, titles, sections: [...], df: Map}
  let loading = null;

  const root = () => document.documentElement.dataset.content_root || "";

  const addScript = (src) =>
    new Promise((resolve, reject) => {
      const tag = document.createElement("script");
      tag.src = src;
      tag.onload = resolve;
      tag.onerror = () => reject(new Error(`could not load ${src}`));
      document.head.appendChild(tag);
    });

  /** Load the stemmer and the index once; resolve when both are there. */
  const ready = () => {
    if (!loading) {
      const stemmer =
        typeof window.Stemmer === "function"
          ? Promise.resolve()
          : addScript(`${root()}_static/language_data.js`);
      loading = stemmer.then(() => addScript(`${root()}_static/search-index.js`));
    }
    return loading;
  };

  /** Called by search-index.js with the records the build wrote. */
  const load = (data) => {
    const sections = data.sections.map(
      ([page, anchor, title, snippet, names, keys, words]) => ({
        page,
        anchor,
        title,
        snippet,
        names: new Set(names.split("\n")),
        keys: new Set(keys.split(" ")),
        words: new Set(words.split(" ")),
      }),
    );
    const df = new Map();
    for (const s of sections)
      for (const w of new Set([...s.keys, ...s.words])) df.set(w, (df.get(w) || 0) + 1);
    index = { pages: data.pages, titles: data.titles, sections, df };
  };

  const normalise = (text) =>
    text.toLowerCase().replace(/[`"']/g, "").replace(/\(\)$/, "").trim();

  const queryStems = (query) => {
    const stemmer = new window.Stemmer();
    const words = query.toLowerCase().split(/[^\p{L}\p{N}_]+/u).filter(Boolean);
    const kept = words.filter((w) => !FILLERS.has(w));
    return (kept.length ? kept : words).map((w) => stemmer.stemWord(w));
  };

  /** Rank the sections for ``query``: best first, each {href, page, title, snippet}. */
  const rank = (query, limit = MAX_RESULTS) => {
    if (!index || !query.trim()) return [];
    const exact = normalise(query);
    const terms = [...new Set(queryStems(query))];
    const n = index.sections.length;
    const idf = (w) => Math.log(1 + n / (index.df.get(w) || 0.5));
    const last = terms[terms.length - 1];
    const scored = [];
    for (const s of index.sections) {
      let score = 0;
      let matched = 0;
      for (const t of terms) {
        if (s.keys.has(t)) {
          score += 3 * idf(t);
          matched += 1;
        } else if (s.words.has(t)) {
          score += idf(t);
          matched += 1;
        } else if (t === last && t.length >= 2) {
          // The word being typed: a prefix of a heading word counts, a little.
          for (const k of s.keys)
            if (k.startsWith(t)) {
              score += idf(k);
              matched += 0.5;
              break;
            }
        }
      }
      if (!matched) continue;
      score *= (matched / terms.length) ** 2;
      // An exact API name or phrase puts its entry first.
      if (s.names.has(exact)) score += 1000;
      else if ([...s.names].some((name) => name.endsWith(`.${exact}`))) score += 50;
      scored.push([score, s]);
    }
    scored.sort((a, b) => b[0] - a[0]);
    return scored.slice(0, limit).map(([, s]) => ({
      href: `${index.pages[s.page]}#${s.anchor}`,
      page: index.titles[s.page],
      title: s.title,
      snippet: s.snippet,
    }));
  };

  /** Load what is needed, then rank: the one call tests and benchmarks make. */
  const search = async (query, limit = MAX_RESULTS) => {
    await ready();
    return rank(query, limit);
  };

  const render = (list, results) => {
    list.replaceChildren(
      ...results.map((r) => {
        const item = document.createElement("li");
        const link = document.createElement("a");
        link.href = root() + r.href;
        const where = document.createElement("span");
        where.className = "tasksearch-title";
        where.textContent = r.page && r.page !== r.title ? `${r.title} · ${r.page}` : r.title;
        const snippet = document.createElement("span");
        snippet.className = "tasksearch-snippet";
        snippet.textContent = r.snippet;
        link.append(where, snippet);
        item.append(link);
        return item;
      }),
    );
    list.hidden = results.length === 0;
  };

  /** Give a search box results as the reader types. */
  const attach = (input) => {
    const list = document.createElement("ul");
    list.className = "tasksearch-results";
    list.hidden = true;
    list.setAttribute("aria-label", "Best matching entries");
    input.form.after(list);
    let timer = null;
    let asked = "";
    const update = () => {
      const query = input.value;
      asked = query;
      search(query).then(
        (results) => asked === query && render(list, results),
        () => (list.hidden = true), // no index: Enter still reaches search.html
      );
    };
    input.addEventListener("input", () => {
      window.clearTimeout(timer);
      if (!input.value.trim()) {
        asked = "";
        list.hidden = true;
        return;
      }
      timer = window.setTimeout(update, DEBOUNCE_MS);
    });
    input.addEventListener("focus", () => ready().catch(() => {}), { once: true });
    input.addEventListener("keydown", (event) => {
      const first = list.querySelector("a");
      if (event.key === "ArrowDown" && first && !list.hidden) {
        event.preventDefault();
        first.focus();
      }
    });
    list.addEventListener("keydown", (event) => {
      const links = [...list.querySelectorAll("a")];
      const at = links.indexOf(document.activeElement);
      if (event.key === "ArrowDown" && at < links.length - 1) links[at + 1].focus();
      else if (event.key === "ArrowUp") (at > 0 ? links[at - 1] : input).focus();
      else return;
      event.preventDefault();
    });
    if (input.value.trim()) update(); // search.html?q=... opens with its query filled in
  };

  document.addEventListener("DOMContentLoaded", () => {
    document.querySelectorAll("form.bd-search input[name=q]").forEach(attach);
  });

  return { load, search, rank, ready };
})();
