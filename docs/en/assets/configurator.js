// The configurator: switch model, precision and context instantly.
// Every verdict, need and speed comes from api/fit/<model>.json, written by the build's Python
// calculations; this script only picks, sorts and formats them, exactly as the pre-rendered table does.
(function () {
  "use strict";
  const root = document.querySelector(".configurator");
  if (!root) return;
  const data = JSON.parse(root.querySelector(".cfg-i18n").textContent);
  const S = data.strings;
  const form = root.querySelector(".cfg-controls");
  const result = root.querySelector(".cfg-result");
  const select = { model: form.elements.model, precision: form.elements.precision, context: form.elements.context };
  const cache = new Map();
  const RANK = { "one-card": 0, split: 1, tight: 2, "no-fit": 3 };

  const number = (value, digits) => new Intl.NumberFormat(data.locale, {
    minimumFractionDigits: digits, maximumFractionDigits: digits }).format(value);
  const fill = (template, values) => template.replace(/\{(\w+)\}/g, (m, key) => (key in values ? values[key] : m));
  const escape = (text) => String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));
  const gib = (value) => fill(S.unit_gib, { value: number(value, 1) });
  const billions = (params) => fill(S.unit_params_billions, { value: number(params / 1e9, params >= 1e11 ? 0 : 1) });

  async function load(model) {
    if (!cache.has(model)) {
      const response = await fetch(root.dataset.api + encodeURIComponent(model) + ".json");
      if (!response.ok) throw new Error(`${response.status} for ${model}`);
      cache.set(model, await response.json());
    }
    return cache.get(model);
  }

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
    const budget = node.budget[data.engines[precision]];
    const values = { need: gib(cell[2]), budget: gib(budget), cards: number(cell[1], 0) };
    if (cell[0] === "one-card") return fill(S.why_one, values);
    if (cell[0] === "split") return fill(S.why_split, values);
    if (cell[0] === "tight") {
      return fill(S.why_tight, { need: gib(cell[2]), budget: gib(budget),
        cards: cell[1] === 1 ? S.unit_one_card : fill(S.unit_cards, { value: number(cell[1], 0) }) });
    }
    values.cards = cell[1] === 1 ? S.unit_one_card : fill(S.unit_cards, { value: number(cell[1], 0) });
    return fill(S.why_nofit, values);
  }

  // a cell: [verdict, cards, need_gib_per_card, jobs, typical, floor, streams, total, usd_per_million,
  //          tight_setting, longest_context_tokens, warnings]
  const tokens = (value) => number(value, value >= 10 ? 0 : 1);
  // a context length as models advertise it: "128K" for 131,072 tokens, as the pre-rendered menu has it
  const contextLabel = (count) => (count % 1024 === 0 && count >= 1024 ? number(count / 1024, 0) + "K" : number(count, 0));

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

  function note(doc) {
    if (doc.kind === "llm") {
      return doc.active_params ? fill(S.moe_note, { model: doc.name, total: billions(doc.params), active: billions(doc.active_params) }) : "";
    }
    const w = doc.workload;
    const workload = fill(S["workload_" + w.kind], { width: w.width_px, height: w.height_px, frames: w.frames });
    return fill(S.diffusion_note, { model: doc.name, workload });
  }

  function summary(rows) {
    const cheapest = (verdicts) => rows.filter((r) => verdicts.includes(r.cell[0]))
      .reduce((best, r) => (best === null || r.node.amount < best.node.amount ? r : best), null);
    const one = cheapest(["one-card"]);
    const any = cheapest(["one-card", "split"]);
    const tight = cheapest(["tight"]);
    const lines = [one ? fill(S.summary_one, { node: one.node.cheapest_name, price: one.node.cheapest_month })
      : S.summary_none_one];
    if (any === null && tight === null) lines.push(S.summary_none);
    else if (any !== null && any !== one) lines.push(fill(S.summary_any, { node: any.node.cheapest_name, price: any.node.cheapest_month }));
    if (tight !== null && (any === null || tight.node.amount < any.node.amount)) {
      lines.push(fill(S.summary_tight, { node: tight.node.cheapest_name, price: tight.node.cheapest_month }));
    }
    return lines;
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
    const body = rows.map(({ node, cell }) => `<tr class="cfg-${cell[0]}" data-configuration="${escape(node.id)}">`
      + `<th scope="row">${escape(node.name)}</th><td>${escape(verdictText(cell))}</td><td>${escape(why(cell, node, state.precision))}</td>`
      + `<td>${escape(speed(cell, doc.kind))}</td>${llm ? `<td>${escape(fullLoad(cell))}</td>` : ""}`
      + `<td>${escape(node.month)}</td><td>${escape(node.hour)}</td>`
      + `<td>${notes(cell)}</td></tr>`).join("\n");
    const noteText = note(doc);
    result.innerHTML = summary(rows).map((line) => `<p class="cfg-summary">${escape(line)}</p>`).join("\n")
      + (noteText ? `<p class="cfg-note">${escape(noteText)}</p>` : "")
      + `<div class="table-scroll" role="region" tabindex="0" aria-label="${caption}">`
      + `<table class="data-table cfg-table"><caption>${caption}</caption>`
      + `<thead><tr>${headers.map((h) => `<th scope="col">${escape(h)}</th>`).join("")}</tr></thead>`
      + `<tbody>${body}</tbody></table></div>`
      + (doc.kind === "llm" ? `<p class="cfg-floor">${escape(S.floor_note)}</p>` : "");
  }

  function options(element, entries, selected) {
    element.replaceChildren(...entries.map(([value, label]) => {
      const option = new Option(label, value, false, value === selected);
      return option;
    }));
  }

  function resolve(doc, wanted) {
    // own keys only: a precision such as "__proto__" or "constructor" from the URL is unknown, not a lookup
    const precision = Object.hasOwn(doc.fits, wanted.precision) ? wanted.precision : doc.default_precision;
    const contexts = Object.keys(doc.fits[precision]).sort((a, b) => Number(a) - Number(b));
    const fallback = contexts.includes(doc.default_context) ? doc.default_context : contexts[contexts.length - 1];
    const context = contexts.includes(wanted.context) ? wanted.context : fallback;
    options(select.precision, Object.keys(doc.fits).map((p) => [p, data.precisions[p]]), precision);
    options(select.context, contexts[0] === "0" ? [["0", S.none]]
      : contexts.map((c) => [c, fill(S.context_tokens, { value: contextLabel(Number(c)) })]), context);
    select.context.disabled = contexts[0] === "0";
    return { model: doc.model, precision, context };
  }

  function remember(state) {
    const query = new URLSearchParams({ model: state.model, precision: state.precision });
    if (state.context !== "0") query.set("context", state.context);
    history.replaceState(null, "", "?" + query.toString());
    document.querySelectorAll("a[hreflang]").forEach((link) => {
      link.href = link.href.split("?")[0] + "?" + query.toString();
    });
  }

  // asked: the precision and context a link's URL asked for, each null when it asked none
  async function show(wanted, updateUrl, asked = { precision: null, context: null }) {
    try {
      const doc = await load(wanted.model);
      const state = resolve(doc, wanted);
      const unknown = (asked.precision && asked.precision !== state.precision)
        || (asked.context && asked.context !== state.context);
      select.model.value = state.model;
      render(doc, state);
      if (unknown) result.insertAdjacentHTML("afterbegin", `<p class="cfg-notice" role="status">${escape(S.unknown_choice)}</p>`);
      if (updateUrl) remember(state);
    } catch (error) {
      console.error(error);
      result.insertAdjacentHTML("afterbegin", `<p class="cfg-error" role="alert">${escape(S.load_error)}</p>`);
    }
  }

  const current = () => ({ model: select.model.value, precision: select.precision.value, context: select.context.value });
  form.hidden = false;
  form.addEventListener("submit", (event) => event.preventDefault());
  select.model.addEventListener("change", () => show(current(), true));
  select.precision.addEventListener("change", () => show(current(), true));
  select.context.addEventListener("change", () => show(current(), true));

  const query = new URLSearchParams(location.search);
  const fromUrl = { model: query.get("model"), precision: query.get("precision"), context: query.get("context") };
  const known = [...select.model.options].some((o) => o.value === fromUrl.model);
  show({
    model: known ? fromUrl.model : root.dataset.model,
    precision: fromUrl.precision || root.dataset.precision,
    context: fromUrl.context || root.dataset.context,
  }, known, known ? fromUrl : undefined);
})();
