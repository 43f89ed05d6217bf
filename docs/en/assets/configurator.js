// The configurator: switch model, precision and context without leaving the page.
// Every choice has a page of its own, written by the build (macros/library/configurator.py). This script
// writes no word and formats no figure: it fetches the chosen page and places its table, status, menus,
// heading and notices into this one, so the script and a page without script always say the same thing.
(function () {
  "use strict";
  const root = document.querySelector(".configurator");
  if (!root) return;
  const form = root.querySelector(".cfg-controls");
  const result = root.querySelector(".cfg-result");
  const status = root.querySelector(".cfg-status");     // the one live region: a sentence, not the table
  const notice = root.querySelector(".cfg-notice");     // at most one notice, replaced, never stacked
  const heading = document.querySelector(".cfg-title"); // a model's own page names its choice here
  const intro = document.querySelector(".cfg-intro");
  const select = { model: form.elements.model, precision: form.elements.precision, context: form.elements.context };
  const pages = new Map();  // address -> the parsed page, or the promise of it

  // the page's data, its addresses made absolute while the address they are relative to is still the page's
  function dataOf(element, base) {
    const data = JSON.parse(element.textContent);
    const folder = new URL(data.base, base).href;
    for (const model of Object.values(data.pages)) {
      for (const contexts of Object.values(model.choices)) {
        for (const context of Object.keys(contexts)) contexts[context] = new URL(contexts[context], folder).href;
      }
    }
    return data;
  }
  let data = dataOf(root.querySelector(".cfg-data"), document.baseURI);

  // the state a wish resolves to: an unknown precision or context falls back to the model's default
  function resolve(wanted) {
    const model = data.pages[wanted.model];
    const [defaultPrecision, defaultContext] = model.default;
    // own keys only: a precision such as "__proto__" or "constructor" from the URL is unknown, not a lookup
    const precision = Object.hasOwn(model.choices, wanted.precision) ? wanted.precision : defaultPrecision;
    const contexts = model.choices[precision];
    const keys = Object.keys(contexts);
    const fallback = Object.hasOwn(contexts, defaultContext) ? defaultContext : keys[keys.length - 1];
    const context = Object.hasOwn(contexts, wanted.context) ? wanted.context : fallback;
    return { model: wanted.model, precision, context, url: contexts[context] };
  }

  function load(url) {
    if (!pages.has(url)) {
      pages.set(url, fetch(url).then((response) => {
        if (!response.ok) throw new Error(url + " " + response.status);
        return response.text();
      }).then((text) => new DOMParser().parseFromString(text, "text/html")));
    }
    return pages.get(url).catch((error) => {
      pages.delete(url);  // a later try may succeed
      throw error;
    });
  }

  // links of a fetched page point from its address: make them absolute before placing them here
  function placed(element, base) {
    const copy = document.importNode(element, true);
    copy.querySelectorAll("a[href]").forEach((a) => a.setAttribute("href", new URL(a.getAttribute("href"), base).href));
    return copy;
  }

  function sameOptions(element, other) {
    return element.options.length === other.options.length
      && [...element.options].every((o, i) => o.value === other.options[i].value && o.text === other.options[i].text);
  }

  function menus(doc, state) {
    for (const name of ["precision", "context"]) {
      const other = doc.querySelector(`.configurator select[name=${name}]`);
      if (!sameOptions(select[name], other)) select[name].replaceChildren(...[...other.options].map((o) => new Option(o.text, o.value)));
    }
    select.model.value = state.model;
    select.precision.value = state.precision;
    select.context.value = state.context;
    select.context.disabled = state.context === "0";
  }

  function place(doc, state) {
    const other = doc.querySelector(".configurator");
    result.replaceChildren(...[...placed(other.querySelector(".cfg-result"), state.url).childNodes]);
    const said = other.querySelector(".cfg-status").textContent;
    if (status.textContent !== said) status.textContent = said;
    menus(doc, state);
    root.dataset.model = state.model;
    root.dataset.precision = state.precision;
    root.dataset.context = state.context;
    data = dataOf(other.querySelector(".cfg-data"), state.url);
    root.querySelectorAll(".cfg-models a[data-model]").forEach((link) => {
      if (link.dataset.model === state.model) link.setAttribute("aria-current", "true");
      else link.removeAttribute("aria-current");
    });
    // a model's page names its choice in the heading, the intro and the tab's title
    const title = doc.querySelector(".cfg-title")?.firstChild;
    if (heading && heading.firstChild?.nodeType === Node.TEXT_NODE && title) {
      heading.firstChild.nodeValue = title.nodeValue;
      document.title = doc.title;
    }
    const text = doc.querySelector(".cfg-intro");
    if (intro && text) intro.textContent = text.textContent;
    return other;
  }

  // the address keeps its depth (the site's links are relative to it): the chosen page itself when it stands
  // as deep as this one, else this page with the choice in its query, which the script shows on a reload
  function remember(state, doc) {
    const own = new URL(state.url);
    const depth = (path) => path.split("/").length;
    const query = new URLSearchParams({ model: state.model, precision: state.precision });
    if (state.context !== "0") query.set("context", state.context);
    const mine = heading !== null && depth(own.pathname) === depth(location.pathname);
    history.replaceState(null, "", mine ? own.pathname : location.pathname + "?" + query.toString());
    // the language menu leads to the same choice
    const others = new Map([...doc.querySelectorAll("a[hreflang]")].map((a) => [a.hreflang, a.getAttribute("href")]));
    document.querySelectorAll("a[hreflang]").forEach((link) => {
      link.href = mine && others.has(link.hreflang)
        ? new URL(others.get(link.hreflang), state.url).href
        : link.href.split("?")[0] + "?" + query.toString();
    });
  }

  function tell(message) {
    notice.textContent = message || "";
    notice.hidden = !message;
  }

  let shown = { model: root.dataset.model, precision: root.dataset.precision, context: root.dataset.context };
  let latest = 0;

  // asked: the precision and context a link's URL asked for, each null when it asked none
  async function show(wanted, updateUrl, asked = { precision: null, context: null }) {
    const request = ++latest;
    const state = resolve(wanted);
    const unknown = (asked.precision && asked.precision !== state.precision)
      || (asked.context && asked.context !== state.context);
    const messages = data;
    try {
      // the choice shown is in the page already: drawing it again could only move it
      const same = state.model === shown.model && state.precision === shown.precision && state.context === shown.context;
      const doc = same ? document : await load(state.url);
      if (request !== latest) return;   // a newer choice was made meanwhile: it decides
      if (!same) place(doc, state);
      shown = state;
      tell(unknown ? messages.unknown_choice : null);
      if (updateUrl) remember(state, doc);
    } catch (error) {
      if (request !== latest) return;
      console.warn(error);
      // the menus go back to what the table shows, and one notice says so
      select.model.value = shown.model;
      select.precision.value = shown.precision;
      select.context.value = shown.context;
      tell(messages.load_error[wanted.model]);
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
  if (Object.hasOwn(data.pages, fromUrl.model ?? "")) {
    show({ model: fromUrl.model, precision: fromUrl.precision || "", context: fromUrl.context || "" }, true, fromUrl);
  }
})();
