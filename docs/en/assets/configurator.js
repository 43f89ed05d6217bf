// The configurator: switch model, precision and context instantly.
// Every verdict, need and speed comes from api/fit/<model>.json, written by the build's Python
// calculations; this script only picks, sorts and formats them, exactly as the pre-rendered page does
// (macros/library/configurator.py), in the same order. The page works without it: every model, precision
// and context has a page of its own.
(function () {
  "use strict";
  const root = document.querySelector(".configurator");
  if (!root) return;
  const data = JSON.parse(root.querySelector(".cfg-i18n").textContent);
  const S = data.strings;
  const form = root.querySelector(".cfg-controls");
  const result = root.querySelector(".cfg-result");
  const status = root.querySelector(".cfg-status");     // the one live region: a sentence, not the table
  const notice = root.querySelector(".cfg-notice");     // at most one notice, replaced, never stacked
  const heading = document.querySelector(".cfg-title"); // a model's own page names its model here
  const intro = document.querySelector(".cfg-intro");
  const select = { model: form.elements.model, precision: form.elements.precision, context: form.elements.context };
  const cache = new Map();
  const RANK = { "one-card": 0, split: 1, tight: 2, "no-fit": 3 };
  const RUNS = ["one-card", "split"];

  const number = (value, digits) => new Intl.NumberFormat(data.locale, {
    minimumFractionDigits: digits, maximumFractionDigits: digits }).format(value);
  const fill = (template, values) => template.replace(/\{(\w+)\}/g, (m, key) => (key in values ? values[key] : m));
  const escape = (text) => String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));
  const gib = (value) => fill(S.unit_gib, { value: number(value, 1) });
  const cardsText = (count) => (count === 1 ? S.unit_one_card : fill(S.unit_cards, { value: number(count, 0) }));
  const modelName = (id) => [...select.model.options].find((o) => o.value === id)?.textContent ?? id;

  async function load(model) {
    if (!cache.has(model)) {
      const response = await fetch(root.dataset.api + encodeURIComponent(model) + ".json");
      if (!response.ok) throw new Error(`${response.status} for ${model}`);
      cache.set(model, await response.json());
    }
    return cache.get(model);
  }

  // a cell: [verdict, cards, need_gib_per_card, jobs, typical, floor, streams, total, usd_per_million,
  //          tight_setting, longest_context_tokens, warnings]
  function verdictText(cell) {
    if (cell[0] === "split") return fill(S["verdict_split"], { cards: number(cell[1], 0) });
    if (cell[0] === "tight") {
      const cards = number(cell[1], 0);
      const longest = cell[10] === null ? null : number(cell[10], 0);
      if (cell[9] === null) return fill(cell[1] > 1 ? S.tight_context_cards : S.tight_context, { cards, tokens: longest });
      const text = fill(cell[1] > 1 ? S.tight_utilization_cards : S.tight_utilization, { cards, setting: cell[9] });
      return longest === null ? text : text + ", " + fill(S.tight_or_context, { tokens: longest });
    }
    return S["verdict_" + cell[0]];
  }

  function why(cell, node, precision) {
    // what a card offers at the default setting of the engine that runs this format
    const values = { need: gib(cell[2]), budget: gib(node.budget[data.engines[precision]]) };
    if (cell[0] === "one-card") return fill(S.why_one, values);
    if (cell[0] === "split") return fill(S.why_split, { ...values, cards: number(cell[1], 0) });
    return fill(cell[0] === "tight" ? S.why_tight : S.why_nofit, { ...values, cards: cardsText(cell[1]) });
  }

  const tokens = (value) => number(value, value >= 10 ? 0 : 1);
  // a context length as models advertise it: "128K" for 131,072 tokens, as the pre-rendered menu has it
  const contextLabel = (count) => (count % 1024 === 0 && count >= 1024 ? number(count / 1024, 0) + "K" : number(count, 0));
  const contextText = (key) => fill(S.context_tokens, { value: contextLabel(Number(key)) });

  function speed(cell, kind) {
    if (kind === "diffusion") return cell[3] === null ? S.none : fill(S.jobs, { value: number(cell[3], 0) });
    if (cell[4] === null) return S.none;
    return fill(S.unit_speed_cell, { typical: tokens(cell[4]), floor: tokens(cell[5]) });
  }

  function fullLoad(cell) {
    if (cell[6] === null || cell[8] === null) return S.none;
    const price = fill(data.money, { value: number(cell[8], 2) });
    const streams = cell[6] === 1 ? S.unit_one_stream : fill(S.unit_streams, { value: number(cell[6], 0) });
    return fill(S.load, { streams, total: tokens(cell[7]), price });
  }

  function notes(cell) {
    const parts = [];
    if (cell[11].includes("fp8-not-native")) parts.push(escape(S.warn_fp8));
    if (cell[11].includes("split-over-pcie")) {
      const link = `<a href="${escape(data.guide)}">${escape(S.warn_pcie_link)}</a>`;
      parts.push(fill(escape(S.with_link), { text: escape(S.warn_pcie), link }));
    }
    return parts.join(escape(S.notes_separator));
  }

  // the model's note, written by the server as the page's own (counts of parameters in words, per language)
  const note = (doc) => data.notes[doc.model] ?? "";

  // how the cheapest node that runs the model uses its cards
  function how(row) {
    const used = row.cell[1], cards = row.node.cards;
    if (used === cards) return cards === 1 ? S.how_single : fill(S.how_split_all, { cards: number(cards, 0) });
    if (used === 1) return fill(S.how_copies, { cards: number(cards, 0) });
    return fill(S.how_split_some, { used: number(used, 0), cards: number(cards, 0) });
  }

  function summary(rows) {
    const cheapest = (verdicts) => rows.filter((r) => verdicts.includes(r.cell[0]))
      .reduce((best, r) => (best === null || r.node.amount < best.node.amount ? r : best), null);
    const runs = cheapest(RUNS), single = cheapest(["one-card"]), tight = cheapest(["tight"]);
    const named = (key, row, values) => fill(S[key], { node: row.node.cheapest_name, price: row.node.cheapest_month, ...values });
    if (runs === null) return [tight === null ? S.summary_none : named("summary_tight_only", tight, { verdict: verdictText(tight.cell) })];
    const lines = [named("summary_runs", runs, { how: how(runs) })];
    if (single === null) lines.push(S.summary_no_single);
    else if (single.node.id !== runs.node.id) lines.push(named("summary_single", single, { gpu: single.node.gpu }));
    if (tight !== null && tight.node.amount < runs.node.amount) lines.push(named("summary_tight", tight, { verdict: verdictText(tight.cell) }));
    return lines;
  }

  // "Llama 3.3 70B in BF16, 8K tokens"; an image or video model has no context
  function choiceText(name, state) {
    const values = { model: name, precision: data.precisions[state.precision] };
    return state.context === "0" ? fill(S.choice, values) : fill(S.choice_context, { ...values, context: contextText(state.context) });
  }

  function statusText(name, state, rows) {
    const count = (verdicts) => rows.filter((r) => verdicts.includes(r.cell[0])).length;
    const values = { choice: choiceText(name, state), count: number(count(RUNS), 0), total: number(rows.length, 0) };
    const tight = count(["tight"]);
    return tight ? fill(S.status_tight, { ...values, tight: number(tight, 0) }) : fill(S.status, values);
  }

  function cellHtml(label, text, html) {
    const none = text === S.none || text === "";
    return `<td data-label="${escape(label)}"${none ? ' class="cfg-na"' : ""}>${html ?? escape(text)}</td>`;
  }

  function render(doc, state) {
    const cells = doc.fits[state.precision][state.context];
    const rows = data.configurations.map((node) => ({ node, cell: cells[node.id] }));
    rows.sort((a, b) => RANK[a.cell[0]] - RANK[b.cell[0]] || a.node.amount - b.node.amount
      || (a.node.id < b.node.id ? -1 : a.node.id > b.node.id ? 1 : 0));
    const caption = escape(fill(S.caption, { model: doc.name, precision: data.precisions[state.precision] }));
    const llm = doc.kind === "llm";
    const headers = [S.col_node, S.col_verdict, S.col_why, llm ? S.col_speed : S.col_jobs,
      ...(llm ? [S.col_load] : []), S.col_month, S.col_hour, S.col_notes];
    const body = rows.map(({ node, cell }) => {
      const values = [verdictText(cell), why(cell, node, state.precision), speed(cell, doc.kind),
        ...(llm ? [fullLoad(cell)] : []), node.month, node.hour];
      const noteHtml = notes(cell);
      return `<tr class="cfg-${cell[0]}" data-configuration="${escape(node.id)}" id="cfg-${escape(node.id)}">`
        + `<th scope="row">${escape(node.name)}</th>`
        + values.map((value, i) => cellHtml(headers[i + 1], value)).join("")
        + cellHtml(headers[headers.length - 1], noteHtml, noteHtml) + "</tr>";
    }).join("\n");
    const noteText = note(doc);
    result.innerHTML = summary(rows).map((line) => `<p class="cfg-summary">${escape(line)}</p>`).join("\n")
      + (noteText ? `<p class="cfg-note">${escape(noteText)}</p>` : "")
      + `<div class="table-scroll" role="region" tabindex="0" aria-label="${caption}">`
      + `<table class="data-table cfg-table"><caption>${caption}</caption>`
      + `<thead><tr>${headers.map((h) => `<th scope="col">${escape(h)}</th>`).join("")}</tr></thead>`
      + `<tbody>${body}</tbody></table></div>`
      + (llm ? `<p class="cfg-floor">${escape(S.floor_note)}</p>` : "");
    const said = statusText(doc.name, state, rows);
    if (status.textContent !== said) status.textContent = said;
  }

  // the heading, the intro, the tab's title and the model list name the model shown
  function follow(doc) {
    const title = fill(S.page_title, { model: doc.name });
    const text = heading && heading.firstChild;
    if (text && text.nodeType === Node.TEXT_NODE && text.nodeValue !== title) {
      document.title = document.title.includes(text.nodeValue) ? document.title.replace(text.nodeValue, title) : title;
      text.nodeValue = title;
    }
    if (intro) intro.textContent = fill(S.page_intro, { model: doc.name });
    root.querySelectorAll(".cfg-models a[data-model]").forEach((link) => {
      if (link.dataset.model === doc.model) link.setAttribute("aria-current", "true");
      else link.removeAttribute("aria-current");
    });
  }

  function options(element, entries, selected) {
    const same = element.options.length === entries.length && entries.every(([value], i) => element.options[i].value === value);
    if (!same) element.replaceChildren(...entries.map(([value, label]) => new Option(label, value)));
    element.value = selected;
  }

  function resolve(doc, wanted) {
    // own keys only: a precision such as "__proto__" or "constructor" from the URL is unknown, not a lookup
    const precision = Object.hasOwn(doc.fits, wanted.precision) ? wanted.precision : doc.default_precision;
    const contexts = Object.keys(doc.fits[precision]).sort((a, b) => Number(a) - Number(b));
    const fallback = contexts.includes(doc.default_context) ? doc.default_context : contexts[contexts.length - 1];
    const context = contexts.includes(wanted.context) ? wanted.context : fallback;
    // the catalog's order of precisions, as the server wrote the menu (not the API's sorted keys)
    options(select.precision, Object.keys(data.precisions).filter((p) => Object.hasOwn(doc.fits, p))
      .map((p) => [p, data.precisions[p]]), precision);
    options(select.context, contexts[0] === "0" ? [["0", S.none]] : contexts.map((c) => [c, contextText(c)]), context);
    select.context.disabled = contexts[0] === "0";
    return { model: doc.model, precision, context };
  }

  function remember(state) {
    const query = new URLSearchParams({ model: state.model, precision: state.precision });
    if (state.context !== "0") query.set("context", state.context);
    // a model's own page moves to the chosen model's page, so that a reload shows the same heading
    const path = heading ? data.pages + encodeURIComponent(state.model) + "/" : location.pathname;
    history.replaceState(null, "", path + "?" + query.toString());
    // the language menu leads to the same choice, on the chosen model's page when this is a model's page
    const page = (href) => (heading ? href.replace(/\/configurator\/.*$/, "/configurator/" + encodeURIComponent(state.model) + "/") : href);
    document.querySelectorAll("a[hreflang]").forEach((link) => {
      link.href = page(link.href.split("?")[0]) + "?" + query.toString();
    });
  }

  function tell(message) {
    notice.textContent = message || "";
    notice.hidden = !message;
  }

  // what the menus and the table show: the page's own choice until a load succeeds
  let shown = { model: root.dataset.model, precision: root.dataset.precision, context: root.dataset.context,
    name: modelName(root.dataset.model) };
  let latest = 0;

  // asked: the precision and context a link's URL asked for, each null when it asked none
  async function show(wanted, updateUrl, asked = { precision: null, context: null }) {
    const request = ++latest;
    try {
      const doc = await load(wanted.model);
      if (request !== latest) return;   // a newer choice was made meanwhile: it decides
      const state = resolve(doc, wanted);
      const unknown = (asked.precision && asked.precision !== state.precision)
        || (asked.context && asked.context !== state.context);
      select.model.value = state.model;
      // the page's own choice is in the HTML already: drawing it again could only move it
      const asServed = state.model === root.dataset.model && state.precision === root.dataset.precision
        && state.context === root.dataset.context && !root.dataset.drawn;
      if (!asServed) render(doc, state);
      root.dataset.drawn = "yes";
      follow(doc);
      shown = { ...state, name: doc.name };
      tell(unknown ? S.unknown_choice : null);
      if (updateUrl) remember(state);
    } catch (error) {
      if (request !== latest) return;
      console.warn(error);
      // the menus go back to what the table shows, and one notice says so
      select.model.value = shown.model;
      select.precision.value = shown.precision;
      select.context.value = shown.context;
      tell(fill(S.load_error, { model: modelName(wanted.model), shown: choiceText(shown.name, shown) }));
    }
  }

  const current = () => ({ model: select.model.value, precision: select.precision.value, context: select.context.value });
  form.hidden = false;
  select.model.disabled = select.precision.disabled = false;
  select.context.disabled = root.dataset.context === "0";
  form.addEventListener("submit", (event) => event.preventDefault());
  Object.values(select).forEach((element) => element.addEventListener("change", () => show(current(), true)));

  const query = new URLSearchParams(location.search);
  const fromUrl = { model: query.get("model"), precision: query.get("precision"), context: query.get("context") };
  const known = [...select.model.options].some((o) => o.value === fromUrl.model);
  show({
    model: known ? fromUrl.model : root.dataset.model,
    precision: fromUrl.precision || root.dataset.precision,
    context: fromUrl.context || root.dataset.context,
  }, known, known ? fromUrl : undefined);
})();
