/*
 * The ranking of the site's search (tasksearch.js), in a file of its own: tasksearch.js
 * loads it with the stemmer and the index when a reader first reaches a search box, so
 * a page that is only read downloads none of it.
 *
 * Ranking is BM25F over the fields docs/_ext/tasksearch.py indexed (heading, the Summary's
 * "You want" cells, the terms file's phrases, prose, code, printed output, printed error
 * messages, and the page's title): a query word scores by how rare it is across entries
 * (idf) and by how often it occurs in each field of an entry, a field's count weighed by
 * the field and normalised by the field's length. Synonym groups widen a query word; an
 * error message pasted from a traceback is normalised with the build's rules and weighs
 * the entries' printed messages more.
 */
"use strict";

const TaskSearchRank = (() => {
  const MAX_RESULTS = 8;
  // BM25F. A field's weight says how much one of its words is worth next to one of the
  // prose's; b how much a long field dilutes its words (0: not at all, 1: in proportion).
  const FIELDS = {
    title: { weight: 5, b: 0.3 },
    want: { weight: 3, b: 0.3 },
    phrases: { weight: 3, b: 0.3 },
    page: { weight: 1, b: 0 },
    prose: { weight: 1, b: 0.75 },
    code: { weight: 0.5, b: 0.5 },
    output: { weight: 0.3, b: 0.5 },
    errors: { weight: 2, b: 0.5 },
  };
  // A word's rarity (idf) is counted over the fields that describe an entry: code and
  // output use the same names everywhere (torch.manual_seed opens every block that prints
  // random numbers), which would make "seed" look common. A word found only in code or
  // output is counted there.
  const DESCRIBING = new Set(["title", "want", "phrases", "page", "prose", "errors"]);
  const K1 = 1.2; // how soon a word's count stops adding (BM25's usual value)
  const SYNONYM_WEIGHT = 0.5; // a synonym counts half as much as the reader's own word
  // A query should match all its words: an entry's score is multiplied by its coverage
  // (to the power COVERAGE), the share of the query's words it holds (in its own text: a
  // word of its page's title alone does not count). Each word counts twice over: once as
  // one word, once by its rarity (idf), and coverage is the geometric mean of the two
  // shares. A forum post's common words ("difference", "after", "few") then cost an entry
  // that lacks them less than its rare ones ("nan", "permute"); counted alone, an entry
  // holding only the common ones outranked the one holding what the reader asked about.
  // The power softens it: questions carry words beside the point ("in layman terms",
  // "during training"), and at full strength an entry that happened to hold them beat
  // the one that answers.
  const COVERAGE = 0.5;
  // A pasted error: its printed messages weigh this much more, and an entry whose message
  // the paste contains (word pairs in order) gains up to ERROR_MATCH.
  const PASTED_ERRORS_WEIGHT = 8;
  const ERROR_MATCH = 20;
  const LONG_QUERY_WORDS = 12; // a query this long is pasted text, not typed words
  // "numpy to tensor" is not "tensor to numpy": an entry whose heading (or phrase) names
  // more the opposite of the direction a typed query names than the same loses this share
  // of its score. Agreeing earns nothing: the words both share already scored.
  const DIRECTION = 0.5;
  // "nn.Embedding with a padding index": a query that writes an API's name as
  // code (dotted, snake_case, called, or spelt in the API's own capitals) is about that
  // API. Its entry gains this share of its score; an entry whose name ends in the same
  // part under another prefix ("x.view" for torch.Tensor.view) gains half of it.
  const NAMED = 0.5;
  // An entry whose heading writes the name among other words ("Stop tracking: detach",
  // "zero_grad and the optimizer's state") gains this share when the query names it.
  const HEADING_NAMED = 0.5;
  // A word this long that no entry holds is read as a typo of the index's words one slip
  // from it; shorter words have too many neighbours ("grad" and "gard").
  const TYPO_LETTERS = 5;
  const TRACEBACK = /Traceback \(most recent call last\)/;


  let index = null;

  // -- Words: the same tokens and stems as tasksearch.py's stems() -------------------

  const TOKEN = /[\p{L}\p{N}\p{M}_.]+/gu;
  const WORD = /^\p{L}[\p{L}\p{N}\p{M}_]*$/u;
  const LONGEST_WORD = 30;
  let stemmer = null;
  const stemCache = new Map();

  /** The form of a word that is stemmed: one spelling, one form (tasksearch.one_form). */
  const oneForm = (word) =>
    Object.prototype.hasOwnProperty.call(index.forms.words, word)
      ? index.forms.words[word]
      : word.replace(index.forms.spelling, (_, ending) => `${ending[0]}z`);

  const stem = (word) => {
    let stemmed = stemCache.get(word);
    if (stemmed === undefined) {
      stemmer = stemmer || new window.Stemmer();
      stemmed = stemmer.stemWord(oneForm(word));
      stemCache.set(word, stemmed);
    }
    return stemmed;
  };

  /** The words of ``text`` in order, each {word, stem, stop}; a dotted name by its parts. */
  const words = (text) => {
    const out = [];
    for (const [token] of text.toLowerCase().matchAll(TOKEN)) {
      const parts = token.split(".").filter(Boolean);
      const all = [...parts, ...parts.filter((p) => p.includes("_")).flatMap((p) => p.split("_"))];
      for (const word of all)
        if (word && WORD.test(word) && word.length < LONGEST_WORD)
          out.push({ word, stem: stem(word), stop: index.stop.has(word) });
    }
    return out;
  };

  const stems = (text) => words(text).filter((w) => !w.stop).map((w) => w.stem);

  const pairs = (list) => new Set(list.slice(1).map((w, i) => `${list[i]} ${w}`));

  // -- Error messages: the rules of docs/_ext/errortext.toml, as the build applied them --

  /** The text from its last exception marker on, or all of it (errortext.message). */
  const messageOf = (text) => {
    const starts = [...text.matchAll(index.errors.markerAll)];
    return starts.length ? text.slice(starts[starts.length - 1].index) : text;
  };

  /** The stable part of an error message (errortext.normalise, in JavaScript). */
  const normaliseError = (text) => {
    const rules = index.errors;
    text = messageOf(text);
    for (const pattern of rules.dropPatterns) text = text.replace(pattern, " ");
    return text.toLowerCase().split(/\s+/).filter(Boolean).slice(0, rules.max_words).join(" ");
  };

  // -- Direction: what a text converts from, and to ------------------------------------

  const MARKERS = { to: "forward", into: "forward", from: "backward" };
  const ARROWS = /\u2192|->|=>/g;
  const CLAUSE = /[:;,!?()[\]\n\u2013\u2014]|\.(?=\s|$)|\s-\s/;
  // After these words "to" starts a verb, not a target: "how to", "want to", "fails to".
  const INFINITIVE = new Set(
    ("how what when where which whether want wants wanted need needs way ways try tries " +
      "trying tried able unable going have has had used order fail fails failed like " +
      "seem seems ought").split(" "),
  );
  // After these words "from" compares, it names no source: "differs from numpy".
  const COMPARING = new Set(
    "differ differs differed differing different differently distinct apart away far".split(" "),
  );
  // In a direction, the library's name stands for its tensors: "numpy to pytorch".
  const LIBRARY = new Set(["pytorch", "torch"]);

  /**
   * The words a text puts on each side of "to", "into" or "from", within one clause (up
   * to a colon, comma, dash, full stop or line end), each side reaching to the next marker:
   * "A to B" and "B from A" both read {source: A, target: B}, as does "C from A to B"
   * (the words before "from" are then not its target), and a clause that opens "From A"
   * names its source alone. Only a word of its own is a marker (not the "to" of
   * ``.to()``, nor the "from" of ``from_numpy``), and a side without a word that is not
   * a stop word makes no direction; nor does the "to" of "how to", or the "from" of
   * "differs from". Null when the text names none.
   */
  const directionOf = (text) => {
    const source = new Set();
    const target = new Set();
    for (const clause of text.toLowerCase().replace(ARROWS, " to ").split(CLAUSE)) {
      const sides = [[]];
      const markers = [];
      let previous = "";
      for (const [token] of clause.matchAll(TOKEN)) {
        const verb =
          (token === "to" && INFINITIVE.has(previous)) ||
          (token === "from" && COMPARING.has(previous));
        previous = token;
        if (Object.prototype.hasOwnProperty.call(MARKERS, token) && !verb) {
          markers.push(MARKERS[token]);
          sides.push([]);
          continue;
        }
        for (const w of words(token))
          if (LIBRARY.has(w.word)) sides[sides.length - 1].push(stem("tensor"));
          else if (!w.stop) sides[sides.length - 1].push(w.stem);
      }
      markers.forEach((kind, k) => {
        const [before, after] = [sides[k], sides[k + 1]];
        if (!after.length || (!before.length && (kind === "forward" || k > 0))) return;
        const [from, to] = kind === "forward" ? [before, after] : [after, before];
        from.forEach((w) => source.add(w));
        // "copy from A to B": the "to" names the target, not the verb before "from".
        if (kind === "forward" || markers[k + 1] !== "forward")
          to.forEach((w) => target.add(w));
      });
    }
    for (const w of [...source]) {
      if (!target.has(w)) continue;
      source.delete(w); // a word on both sides says nothing of the direction
      target.delete(w);
    }
    return source.size || target.size ? { source, target } : null;
  };

  // -- Names written as code: what API a text is about ----------------------------------

  // The prefixes readers write for a module they imported under a short name.
  const ALIASES = { f: "functional", pytorch: "torch" };

  /** An API heading's dotted parts ("torch.nn.Embedding"), or null for any other heading. */
  const apiParts = (title) => {
    const name = title.replace(/\(\)$/, "");
    if (!/^[A-Za-z_][\w.]*$/.test(name) || !name.includes(".")) return null;
    return name.split(".").map((p) => p.replace(/_$/, ""));
  };

  /**
   * The names a text writes as code, each {parts, cased}: a dotted name (nn.Embedding,
   * ``x.view``), a snake_case one (pos_weight), a call (contiguous()), or a name that only
   * its capitals mark as one (BCEWithLogitsLoss, LSTM), which must then match the API's
   * spelling exactly: "NumPy" is not ``Tensor.numpy``. The library's own name is none.
   */
  const codeNamesOf = (text) => {
    const out = [];
    for (const [token, call] of text.matchAll(/[A-Za-z_][\w.]*\w(\(\))?/g)) {
      const name = token.replace(/\(\)$/, "").replace(/_$/, ""); // add_ is add, in place
      const written = /\w\.\w/.test(name) || name.includes("_") || Boolean(call);
      const capitals = /[a-z][A-Z]|[A-Z]{2}[a-z]|^[A-Z]{3,}\d*$/.test(name);
      if ((!written && !capitals) || LIBRARY.has(name.toLowerCase())) continue;
      const parts = name.split(".").filter(Boolean);
      out.push({
        parts: written ? parts.map((p) => p.toLowerCase()).map((p) => ALIASES[p] || p) : parts,
        cased: !written,
      });
    }
    return out;
  };

  /**
   * How much an entry is the API a query names: 1 when its dotted name ends in the parts
   * the query wrote, 1/2 when only the last part is the same, 0 when none is. An entry
   * whose heading is not an API's name is HEADING_NAMED when its heading writes the name.
   */
  const named = (s, q) => {
    if (!s.api) {
      for (const { parts, cased } of q.codeNames) {
        const last = parts[parts.length - 1];
        for (const name of s.headingNames)
          if (cased ? name === last : name.toLowerCase() === last) return HEADING_NAMED;
      }
      return 0;
    }
    let best = 0;
    for (const { parts, cased } of q.codeNames) {
      const api = cased ? s.api : s.api.map((p) => p.toLowerCase());
      const tail = api.slice(-parts.length);
      if (tail.length === parts.length && tail.every((p, i) => p === parts[i])) return 1;
      if (api[api.length - 1] === parts[parts.length - 1]) best = 1 / 2;
    }
    return best;
  };

  /** Whether an entry's direction is more the opposite of the query's than the same. */
  const opposite = (query, entry) => {
    let agree = 0;
    let oppose = 0;
    for (const w of query.source) {
      agree += entry.source.has(w);
      oppose += entry.target.has(w);
    }
    for (const w of query.target) {
      agree += entry.target.has(w);
      oppose += entry.source.has(w);
    }
    return oppose > agree;
  };

  // -- The index ----------------------------------------------------------------------

  // A field's number in an entry's fields.
  const FIELD_NAMES = Object.keys(FIELDS);
  const FIELD = Object.fromEntries(FIELD_NAMES.map((name, f) => [name, f]));
  // The fields the build writes with each word once (sorted sets): a Set is enough.
  const SETS = new Set(["prose", "code", "output"]);

  /** A field's words, counted: a Map, or a Set where each word occurs once. */
  const fieldOf = (name, list) => {
    if (SETS.has(name)) return new Set(list);
    const tf = new Map();
    for (const w of list) tf.set(w, (tf.get(w) || 0) + 1);
    return tf;
  };

  /** How often a word occurs in a field (Map or Set). */
  const occurrences = (field, word) => (field.get ? field.get(word) || 0 : +field.has(word));

  /** A normalised message as the ranking compares it: its stems, and its word pairs. */
  const printedMessage = (text) => {
    const all = words(text).map((w) => w.stem);
    return { pairs: pairs(all), words: new Set(all) };
  };

  /** The error rules as regular expressions (flags as errortext.py compiles them). */
  const readRules = (rules) => ({
    ...rules,
    marker1: new RegExp(rules.marker),
    markerAll: new RegExp(rules.marker, "g"),
    dropPatterns: rules.drop.map(([pattern, flags]) => new RegExp(pattern, `g${flags}`)),
  });

  /** One row of the index: [page, anchor, title, snippet, phrase names, *fields, errors]. */
  const readSection = (row, fieldNames, pageWords) => {
    const [page, anchor, title, snippet, phraseNames] = row;
    const lists = { title: stems(title), page: pageWords[page] };
    fieldNames.forEach((name, k) => (lists[name] = row[5 + k] ? row[5 + k].split(" ") : []));
    const printed = row[5 + fieldNames.length];
    const messages = printed ? printed.split("\n") : [];
    lists.errors = messages.flatMap((m) => stems(m));
    const read = messages.map(printedMessage);
    // A heading that quotes the entry's own error message names no direction.
    const quotes = read.some((m) => lists.title.every((w) => m.words.has(w)));
    return {
      page,
      anchor,
      title,
      snippet,
      name: title.toLowerCase(),
      api: apiParts(title),
      phraseNames: new Set(phraseNames ? phraseNames.split("\n") : []),
      fields: FIELD_NAMES.map((name) => fieldOf(name, lists[name])),
      lengths: FIELD_NAMES.map((name) => lists[name].length),
      messages: read,
      // What the heading names, and with the terms file's phrases (also what readers type).
      direction: quotes ? null : directionOf(title),
      phrasesDirection: directionOf(
        [quotes ? "" : title, ...(phraseNames || "").split("\n")].join("\n"),
      ),
    };
  };

  /** Called by search-index.js with the records the build wrote. */
  const load = (data) => {
    index = {
      pages: data.pages,
      titles: data.titles,
      stop: new Set(data.stop.split(" ")),
      forms: { words: data.forms.words, spelling: new RegExp(data.forms.spelling) },
      errors: readRules(data.errors),
    };
    index.stopStems = new Set([...index.stop].map(stem));
    index.synonyms = data.synonyms.map((group) => group.map((phrase) => phrase.split(" ")));
    const pageWords = data.titles.map(stems);
    index.sections = data.sections.map((row) => readSection(row, data.fields, pageWords));
    index.sections.forEach((s, i) => (s.i = i));
    // The names a heading writes: a word that looks like code (no_grad, BatchNorm), or
    // that is the last part of an API an entry is about ("detach", of torch.Tensor.detach).
    const apiNames = new Set(
      index.sections.filter((s) => s.api).map((s) => s.api[s.api.length - 1].toLowerCase()),
    );
    const isName = (word) =>
      word.includes("_") ||
      /[a-z][A-Z]/.test(word) ||
      (apiNames.has(word.toLowerCase()) && !index.stop.has(word.toLowerCase()));
    for (const s of index.sections) {
      const words = (s.title.match(/[A-Za-z_][\w.]*\w/g) || []).map((t) =>
        t.split(".").filter(Boolean).pop().replace(/_$/, ""),
      );
      s.headingNames = new Set(s.api ? [] : words.filter(isName));
    }
    // Every word any entry holds, in any field: what a query's word is looked up in.
    index.vocabulary = new Set(
      index.sections.flatMap((s) => s.fields.flatMap((f) => [...f.keys()])),
    );
    index.average = FIELD_NAMES.map((_, f) => {
      const total = index.sections.reduce((sum, s) => sum + s.lengths[f], 0);
      return total / index.sections.length || 1;
    });
  };

  /** Whether any entry holds the word, in any field. */
  const known = (word) => index.vocabulary.has(word);

  /**
   * In how many entries a word occurs, counted over the describing fields, or over all
   * where it is in none of those; the terms file's phrases only when they are on.
   */
  const entriesWith = (word, phrases) => {
    let describing = 0;
    let any = 0;
    for (const s of index.sections) {
      let inAny = false;
      let inDescribing = false;
      for (const [f, name] of FIELD_NAMES.entries()) {
        if ((name === "phrases" && !phrases) || !occurrences(s.fields[f], word)) continue;
        inAny = true;
        inDescribing = inDescribing || DESCRIBING.has(name);
      }
      any += inAny;
      describing += inDescribing;
    }
    return describing || any;
  };

  // -- A query, read ------------------------------------------------------------------

  /** A synonym phrase that starts at list[i], the longest, with its group; or null. */
  const synonymAt = (list, i) => {
    let found = null;
    for (const group of index.synonyms)
      for (const phrase of group)
        if (
          (!found || phrase.length > found.phrase.length) &&
          phrase.every((s, j) => list[i + j] && list[i + j].stem === s)
        )
          found = { group, phrase };
    return found;
  };

  /** Whether two words are one word of the index when written together ("top k", topk). */
  const joined = (a, b) =>
    a && b && !a.stop && !b.stop && known(stem(a.word + b.word));

  const LETTERS = "abcdefghijklmnopqrstuvwxyz";

  /**
   * Every word one typing slip from a word: a letter dropped, added or changed, or two
   * neighbours swapped ("gradiant", "dataloder", "contigous", "transpsoe").
   */
  const slips = (word) => {
    const out = new Set();
    for (let i = 0; i <= word.length; i++) {
      const [head, tail] = [word.slice(0, i), word.slice(i)];
      if (tail) out.add(head + tail.slice(1));
      if (tail.length > 1) out.add(head + tail[1] + tail[0] + tail.slice(2));
      for (const c of LETTERS) {
        out.add(head + c + tail);
        if (tail) out.add(head + c + tail.slice(1));
      }
    }
    out.delete(word);
    return out;
  };

  /**
   * For a word of TYPO_LETTERS or more that no entry holds, the index's words that a word
   * one slip from it stems to, each counted as the reader's own word: a typo finds what
   * the word the reader meant would have found.
   */
  const misspelt = (w) => {
    if (w.word.length < TYPO_LETTERS || known(w.stem)) return [];
    const near = new Set();
    for (const word of slips(w.word)) {
      const stemmed = stem(word);
      if (known(stemmed)) near.add(stemmed);
    }
    return [...near].map((v) => ({ stems: [v], weight: 1 }));
  };

  /**
   * The query's words as units to match: each unit a list of alternatives {stems,
   * weight}; the reader's own words weigh 1, the other phrases of a synonym group
   * SYNONYM_WEIGHT, two words an entry writes as one count either way, and a word no
   * entry holds counts as any index word one typing slip from it, unless the text is a
   * pasted error message: a slip is typed, and a message holds names no page does.
   */
  const units = (list, message = false) => {
    const own = (phrase) => phrase.filter((s) => !index.stopStems.has(s));
    const out = [];
    for (let i = 0; i < list.length; ) {
      const synonym = synonymAt(list, i);
      if (synonym) {
        const others = synonym.group.filter((p) => p !== synonym.phrase);
        out.push([
          { stems: own(synonym.phrase), weight: 1 },
          ...others.map((p) => ({ stems: own(p), weight: SYNONYM_WEIGHT })),
        ]);
        i += synonym.phrase.length;
      } else if (joined(list[i], list[i + 1])) {
        const [a, b] = [list[i], list[i + 1]];
        out.push([
          { stems: [a.stem, b.stem], weight: 1 },
          { stems: [stem(a.word + b.word)], weight: 1 },
        ]);
        i += 2;
      } else {
        if (!list[i].stop)
          out.push([{ stems: [list[i].stem], weight: 1 }, ...(message ? [] : misspelt(list[i]))]);
        i += 1;
      }
    }
    if (out.length || !list.length) return out;
    return list.map((w) => [{ stems: [w.stem], weight: 1 }]); // only stop words: keep them
  };

  /**
   * The query, read. A pasted error (a marker such as ``RuntimeError:``, or a
   * traceback) is read from its last marker on, which leaves the traceback's frames
   * out; a long query is read whole. Both are also normalised, to be compared with the
   * entries' printed messages.
   */
  const read = (query) => {
    const message = index.errors.marker1.test(query) || TRACEBACK.test(query);
    const pasted =
      message || query.split(/\s+/).filter(Boolean).length >= LONG_QUERY_WORDS;
    const text = message ? messageOf(query) : query;
    const list = words(text);
    const normalised = pasted ? words(normaliseError(query)).map((w) => w.stem) : [];
    const last = list[list.length - 1];
    const typing = !pasted && !/\s$/.test(query) && last && !last.stop ? last : null;
    return {
      pasted,
      units: units(list, message),
      message: { pairs: pairs(normalised), words: new Set(normalised) },
      direction: pasted ? null : directionOf(query),
      codeNames: codeNamesOf(text),
      // The word still being typed, when the query does not end in a space.
      typing,
      exact: query.toLowerCase().replace(/[`"']/g, "").replace(/\(\)$/, "").trim(),
    };
  };

  // -- Ranking ------------------------------------------------------------------------

  /** A word's count in one field of an entry, weighed by the field and the field's length. */
  const weighed = (s, f, n, q) => {
    const name = FIELD_NAMES[f];
    const { b } = FIELDS[name];
    return (q.weights[name] * n) / (1 - b + (b * s.lengths[f]) / index.average[f]);
  };

  /** BM25: a word's rarity times its weighed count, which stops adding soon (K1). */
  const saturated = (idf, tf) => (idf * tf) / (K1 + tf);

  /** BM25F: a word's score in every entry that holds it, for a prepared query. */
  const wordScores = (word, q) => {
    let scores = q.scores.get(word);
    if (scores) return scores;
    scores = new Map();
    const idf = q.idf(word);
    for (const s of index.sections) {
      let tf = 0;
      for (const f of FIELD_NAMES.keys()) {
        const n = occurrences(s.fields[f], word);
        if (n) tf += weighed(s, f, n, q);
      }
      if (tf) scores.set(s.i, saturated(idf, tf));
    }
    q.scores.set(word, scores);
    return scores;
  };

  const wordScore = (s, word, q) => wordScores(word, q).get(s.i) || 0;

  /** How much of an entry's printed message a pasted one holds (word pairs): 0 to 1. */
  const errorMatch = (s, pasted) => {
    let best = 0;
    for (const m of s.messages) {
      const wanted = m.pairs.size ? m.pairs : m.words;
      const have = m.pairs.size ? pasted.pairs : pasted.words;
      let found = 0;
      for (const p of wanted) found += have.has(p);
      best = Math.max(best, wanted.size ? found / wanted.size : 0);
    }
    return best;
  };

  /** Whether an entry's heading has a word that the word being typed begins. */
  const completes = (s, q) =>
    [...s.fields[FIELD.title].keys()].some((k) => k.startsWith(q.typing.stem));

  /**
   * What ranking a query needs: the query read, the idf of its words and of the word
   * being typed, the field weights.
   */
  const prepare = (query, { phrases = true } = {}) => {
    const q = read(query);
    const n = index.sections.length;
    q.idf = (w) => {
      const found = entriesWith(w, phrases);
      return Math.log(1 + (n - found + 0.5) / (found + 0.5));
    };
    q.weights = {};
    for (const [name, { weight }] of Object.entries(FIELDS)) q.weights[name] = weight;
    if (!phrases) q.weights.phrases = 0;
    if (q.pasted) q.weights.errors *= PASTED_ERRORS_WEIGHT;
    q.phrases = phrases;
    q.scores = new Map();
    if (q.typing) {
      const found = index.sections.filter((s) => completes(s, q)).length;
      q.typingIdf = Math.log(1 + (n - found + 0.5) / (found + 0.5));
    }
    // Each unit's rarity, for coverage: the mean idf of the reader's own words in it.
    q.rarity = q.units.map(([{ stems: own }]) =>
      own.length ? own.reduce((sum, w) => sum + q.idf(w), 0) / own.length : 0,
    );
    q.rarityTotal = q.rarity.reduce((a, b) => a + b, 0);
    return q;
  };

  /** One unit's score in an entry: its best alternative's. */
  const unitScore = (s, alternatives, q) => {
    let best = 0;
    for (const { stems: all, weight } of alternatives) {
      const each = all.map((w) => wordScore(s, w, q));
      const hit = each.filter(Boolean).length;
      if (!hit || (weight < 1 && hit < all.length)) continue;
      best = Math.max(best, (weight * each.reduce((a, b) => a + b, 0) * hit) / all.length);
    }
    return best;
  };

  /**
   * The word being typed scores as one word that every heading word it begins stands
   * for, at half the worth of a whole word: its rarity is that of all those headings
   * together, so "tensor" gains nothing from being the start of the rare "tensordot",
   * and "comp" counts as much for "Compile a module" as for "torch.complex".
   */
  const prefixScore = (s, q) => {
    let n = 0;
    for (const [k, count] of s.fields[FIELD.title]) if (k.startsWith(q.typing.stem)) n += count;
    return n ? saturated(q.typingIdf, weighed(s, FIELD.title, n, q)) / 2 : 0;
  };

  /**
   * Whether an entry itself holds one of a unit's words, not only its page's title: the
   * title says where an entry is, not what it answers, so it scores but does not cover.
   */
  const ownWords = (s, alternatives) =>
    alternatives.some(({ stems: all }) =>
      all.some((w) =>
        FIELD_NAMES.some((_, f) => f !== FIELD.page && occurrences(s.fields[f], w)),
      ),
    );

  /** An entry's score for a prepared query; 0 when nothing matches. */
  const score = (s, q) => {
    let total = 0;
    let matched = 0; // units the entry holds
    let rare = 0; // their rarity
    q.units.forEach((alternatives, u) => {
      let best = unitScore(s, alternatives, q);
      let own = best > 0 && ownWords(s, alternatives);
      const last = q.typing && u === q.units.length - 1 && q.typing.stem.length >= 2;
      if (!best && last) {
        best = prefixScore(s, q); // a heading word the reader is typing: the entry's own
        own = best > 0;
      }
      total += best;
      matched += own;
      rare += own ? q.rarity[u] : 0;
    });
    if (q.pasted) total += ERROR_MATCH * errorMatch(s, q.message);
    else if (q.units.length) {
      const share = matched / q.units.length;
      const coverage = q.rarityTotal ? Math.sqrt(share * (rare / q.rarityTotal)) : share;
      total *= coverage ** COVERAGE;
    }
    if (!total) return 0;
    const direction = q.phrases ? s.phrasesDirection : s.direction;
    if (q.direction && direction && opposite(q.direction, direction)) total *= 1 - DIRECTION;
    total *= 1 + NAMED * named(s, q);
    // An exact API name or phrase puts its entry first.
    const names = q.phrases ? [s.name, ...s.phraseNames] : [s.name];
    if (names.includes(q.exact)) total += 1000;
    else if (names.some((name) => name.endsWith(`.${q.exact}`))) total += 50;
    return total;
  };

  /** The entries that hold a word of the query, or a heading word it is typing. */
  const candidates = (q) => {
    const found = new Set();
    for (const alternatives of q.units)
      for (const { stems: all } of alternatives)
        for (const w of all) for (const section of wordScores(w, q).keys()) found.add(section);
    if (q.typing && q.typing.stem.length >= 2)
      for (const s of index.sections) if (completes(s, q)) found.add(s.i);
    return [...found].map((i) => index.sections[i]);
  };

  /** Rank the sections for ``query``: best first, each {href, page, title, snippet}. */
  const rank = (query, limit = MAX_RESULTS, options = {}) => {
    if (!index || !query.trim()) return [];
    const q = prepare(query, options);
    const scored = [];
    for (const s of candidates(q)) {
      const total = score(s, q);
      if (total) scored.push([total, s]);
    }
    scored.sort((a, b) => b[0] - a[0]);
    return scored.slice(0, limit).map(([, s]) => ({
      href: `${index.pages[s.page]}#${s.anchor}`,
      page: index.titles[s.page],
      title: s.title,
      snippet: s.snippet,
    }));
  };


  /** A text's direction as plain lists, for tests: {source, target} or null. */
  const direction = (text) => {
    const found = directionOf(text);
    return found && { source: [...found.source].sort(), target: [...found.target].sort() };
  };

  /** The API names a text writes as code, as dotted strings, for tests. */
  const codeNames = (text) => codeNamesOf(text).map(({ parts }) => parts.join("."));


  return { load, rank, normaliseError, stems, direction, codeNames };
})();
