/*
 * Search as you type, down to the entry: results appear under the search box while the
 * reader types, each linking to its section with that section's first sentence. On
 * search.html (where Enter leads) the same ranking is listed above Sphinx's results.
 *
 * This file is the search box; the ranking is tasksearch-rank.js. Nothing of search is
 * loaded until a reader reaches a search box: then the ranking, Sphinx's language_data.js
 * (the Snowball stemmer the build used) and _static/search-index.js are added as script
 * tags, which also work from file://.
 */
"use strict";

const TaskSearch = (() => {
  const MAX_RESULTS = 8;
  const DEBOUNCE_MS = 120;
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

  /** Load the ranking, the stemmer and the index once; resolve when all are there. */
  const ready = () => {
    if (!loading) {
      const stemmer =
        typeof window.Stemmer === "function"
          ? Promise.resolve()
          : addScript(`${root()}_static/language_data.js`);
      // A top-level const of a classic script is a global, but not a property of window.
      const ranking =
        typeof TaskSearchRank === "object"
          ? Promise.resolve()
          : addScript(`${root()}_static/tasksearch-rank.js`);
      // search-index.js calls load(): the ranking must be there first.
      loading = Promise.all([stemmer, ranking]).then(() =>
        addScript(`${root()}_static/search-index.js`),
      );
    }
    return loading;
  };

  // The ranking's own functions, for search-index.js (load) and for tests, once ready().
  const load = (data) => TaskSearchRank.load(data);
  const rank = (...args) => TaskSearchRank.rank(...args);
  const normaliseError = (text) => TaskSearchRank.normaliseError(text);
  const stems = (text) => TaskSearchRank.stems(text);
  const direction = (text) => TaskSearchRank.direction(text);
  const codeNames = (text) => TaskSearchRank.codeNames(text);

  /** Load what is needed, then rank: the one call tests and benchmarks make. */
  const search = async (query, limit = MAX_RESULTS, options = {}) => {
    await ready();
    return rank(query, limit, options);
  };

  // -- On the page --------------------------------------------------------------------

  const item = (r) => {
    const entry = document.createElement("li");
    const link = document.createElement("a");
    link.href = root() + r.href;
    const where = document.createElement("span");
    where.className = "tasksearch-title";
    where.textContent = r.page && r.page !== r.title ? `${r.title} · ${r.page}` : r.title;
    const snippet = document.createElement("span");
    snippet.className = "tasksearch-snippet";
    snippet.textContent = r.snippet;
    link.append(where, snippet);
    entry.append(link);
    return entry;
  };

  /**
   * "Suggest an entry" when a query finds nothing: the repository's new-issue form, with
   * the query and what built the site (the <meta> docs/_ext/feedback.py fills in).
   * Null on a page built without it.
   */
  const suggestion = (query) => {
    const meta = document.querySelector('meta[name="cheatsheet-feedback"]');
    if (!meta) return null;
    const { torch, machine, commit } = meta.dataset;
    const body =
      `Searched for: ${query}\nPage: ${window.location.href}\n` +
      `torch: ${torch}\nMachine: ${machine}\nCommit: ${commit}\n\n` +
      "What were you looking for?\n\n";
    const url = `${meta.content}?${new URLSearchParams({ title: `Suggest an entry: ${query}`, body })}`;
    const entry = document.createElement("li");
    entry.className = "tasksearch-suggest";
    const link = document.createElement("a");
    link.href = url;
    link.textContent = `No entry matches "${query}": suggest one`;
    entry.append(link);
    return entry;
  };

  const render = (list, results, query = "") => {
    const offer = results.length === 0 && query.trim() ? suggestion(query.trim()) : null;
    list.replaceChildren(...results.map(item), ...(offer ? [offer] : []));
    list.hidden = results.length === 0 && !offer;
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
        (results) => asked === query && render(list, results, query),
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
  };

  /** On search.html, list the entries this ranking finds above Sphinx's page results. */
  const showOnSearchPage = (sphinxResults) => {
    const query = new URLSearchParams(window.location.search).get("q") || "";
    if (!query.trim()) return;
    const section = document.createElement("section");
    section.className = "tasksearch-page";
    section.setAttribute("aria-labelledby", "tasksearch-page-heading");
    const heading = document.createElement("h2");
    heading.id = "tasksearch-page-heading";
    heading.textContent = "Best matching entries";
    const list = document.createElement("ol");
    list.className = "tasksearch-results";
    section.append(heading, list);
    sphinxResults.before(section);
    search(query).then(
      (results) => {
        render(list, results, query);
        section.hidden = list.hidden;
      },
      () => (section.hidden = true), // no index: Sphinx's results are still there
    );
  };

  document.addEventListener("DOMContentLoaded", () => {
    document.querySelectorAll("form.bd-search input[name=q]").forEach(attach);
    const sphinxResults = document.getElementById("search-results");
    if (sphinxResults) showOnSearchPage(sphinxResults);
  });

  return { load, search, rank, ready, normaliseError, stems, direction, codeNames };
})();
