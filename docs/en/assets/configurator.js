// The configurator: switch model, precision, context and KV cache without leaving the page.
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
  const select = {
    model: form.elements.model, precision: form.elements.precision, context: form.elements.context, kv: form.elements.kv,
  };
  const names = Object.keys(select);  // what a state holds: model, precision, context, KV cache
  const pages = new Map();  // address -> the parsed page, or the promise of it
  let messages = JSON.parse(root.querySelector(".cfg-data").textContent);  // this page's data and notices

  // where every choice's page stands (one file for the site, fetched once), its addresses made absolute from
  // this language's configurator folder; until it comes, the page is the page without script (menus disabled)
  const folder = new URL(messages.base, document.baseURI).href;
  let data = null;  // { pages: where each choice's page stands }, once the file has come
  fetch(new URL(messages.choices, document.baseURI)).then((response) => {
    if (!response.ok) throw new Error(response.url + " " + response.status);
    return response.json();
  }).then((choices) => {
    for (const model of Object.values(choices)) {
      for (const precisions of Object.values(model.choices)) {
        for (const contexts of Object.values(precisions)) {
          for (const context of Object.keys(contexts)) contexts[context] = new URL(contexts[context], folder).href;
        }
      }
    }
    data = { pages: choices };
    start();
  }).catch((error) => console.warn(error));

  // the state a wish resolves to: an unknown precision, context or KV cache falls back to the model's default;
  // every precision and context has a page with the default KV cache, some with the other too
  function resolve(wanted) {
    const model = data.pages[wanted.model];
    const [defaultPrecision, defaultContext, defaultKv] = model.default;
    const every = model.choices[defaultKv];
    // own keys only: a precision such as "__proto__" or "constructor" from the URL is unknown, not a lookup
    const precision = Object.hasOwn(every, wanted.precision) ? wanted.precision : defaultPrecision;
    const contexts = every[precision];
    const keys = Object.keys(contexts);
    const fallback = Object.hasOwn(contexts, defaultContext) ? defaultContext : keys[keys.length - 1];
    const context = Object.hasOwn(contexts, wanted.context) ? wanted.context : fallback;
    const offered = Object.hasOwn(model.choices, wanted.kv) && Object.hasOwn(model.choices[wanted.kv], precision)
      && Object.hasOwn(model.choices[wanted.kv][precision], context);
    const kv = offered ? wanted.kv : defaultKv;
    return { model: wanted.model, precision, context, kv, url: model.choices[kv][precision][context] };
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

  // a menu of one option (no context for an image model, no KV-cache choice) says why and stays disabled
  function enable() {
    select.model.disabled = select.precision.disabled = false;
    select.context.disabled = select.context.options.length < 2;
    select.kv.disabled = select.kv.options.length < 2;
  }

  function menus(doc, state) {
    for (const name of ["precision", "context", "kv"]) {
      const other = doc.querySelector(`.configurator select[name=${name}]`);
      if (!sameOptions(select[name], other)) select[name].replaceChildren(...[...other.options].map((o) => new Option(o.text, o.value)));
    }
    for (const name of names) select[name].value = state[name];
    enable();
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
    root.dataset.kv = state.kv;
    messages = JSON.parse(other.querySelector(".cfg-data").textContent);  // its notices name its choice
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
  // as deep as this one, else this page with the choice in its query, which the script shows on a reload.
  // A choice the reader makes is pushed, as the Plan page pushes a plan: Back and Forward step through the choices
  // (each entry keeps its state); the address a link asked for is only tidied, and Back or Forward only follows.
  function remember(state, doc, how) {
    const own = new URL(state.url);
    const depth = (path) => path.split("/").length;
    const query = new URLSearchParams({ model: state.model, precision: state.precision });
    if (state.context !== "0") query.set("context", state.context);
    if (state.kv !== data.pages[state.model].default[2]) query.set("kv", state.kv);
    const mine = heading !== null && depth(own.pathname) === depth(location.pathname);
    const address = mine ? own.pathname : location.pathname + "?" + query.toString();
    const entry = { configurator: Object.fromEntries(names.map((name) => [name, state[name]])) };
    if (how === "push" && address !== location.pathname + location.search) history.pushState(entry, "", address);
    else if (how !== "follow") history.replaceState(entry, "", address);
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

  let shown = Object.fromEntries(names.map((name) => [name, root.dataset[name]]));
  let latest = 0;

  // how: "push" (a choice the reader made), "replace" (the choice a link asked for) or "follow" (Back or
  // Forward); asked: the precision, context and KV cache a link's URL asked for, each null when it asked none
  async function show(wanted, how, asked = { precision: null, context: null, kv: null }) {
    const request = ++latest;
    const state = resolve(wanted);
    const unknown = ["precision", "context", "kv"].some((name) => asked[name] && asked[name] !== state[name]);
    const said = messages;  // the notices of the choice shown when it was asked for
    try {
      // the choice shown is in the page already: drawing it again could only move it
      const same = names.every((name) => state[name] === shown[name]);
      const doc = same ? document : await load(state.url);
      if (request !== latest) return;   // a newer choice was made meanwhile: it decides
      if (!same) place(doc, state);
      shown = state;
      tell(unknown ? said.unknown_choice : null);
      remember(state, doc, how);
    } catch (error) {
      if (request !== latest) return;
      console.warn(error);
      // the menus go back to what the table shows, and one notice says so
      for (const name of names) select[name].value = shown[name];
      const named = [...select.model.options].find((option) => option.value === wanted.model);
      tell(said.load_error.replace("{model}", named ? named.text : wanted.model));
    }
  }

  // the menus, once the choices' file has come: a choice, Back and Forward, and the choice the address asks for
  function start() {
    const current = () => Object.fromEntries(names.map((name) => [name, select[name].value]));
    form.hidden = false;
    enable();
    form.addEventListener("submit", (event) => event.preventDefault());
    Object.values(select).forEach((element) => element.addEventListener("change", () => show(current(), "push")));

    const written = shown;  // the choice the page was written with: its address's own, without a query
    // the choice an address asks for (each name null when it asks none), or null when it names no model we have
    function fromAddress() {
      const query = new URLSearchParams(location.search);
      const asked = Object.fromEntries(names.map((name) => [name, query.get(name)]));
      return Object.hasOwn(data.pages, asked.model ?? "") ? asked : null;
    }
    const wish = (asked) => Object.fromEntries(names.map((name) => [name, asked[name] || ""]));

    // the choice whose own page stands at this address (an entry a link to a row made: "#cfg-1x-a40"), else null
    function fromPath() {
      for (const [model, page] of Object.entries(data.pages)) {
        for (const [kv, precisions] of Object.entries(page.choices)) {
          for (const [precision, contexts] of Object.entries(precisions)) {
            for (const [context, url] of Object.entries(contexts)) {
              if (new URL(url).pathname === location.pathname) return { model, precision, context, kv };
            }
          }
        }
      }
      return null;
    }

    // Back or Forward: the choice that entry holds, else the one its address asks for or stands for, else the page's
    window.addEventListener("popstate", (event) => {
      const saved = event.state && event.state.configurator;
      const asked = fromAddress();
      if (saved && Object.hasOwn(data.pages, saved.model)) show(saved, "follow");
      else show(asked ? wish(asked) : fromPath() || written, "follow");
    });

    const asked = fromAddress();
    if (asked) show(wish(asked), "replace", asked);
    else history.replaceState({ configurator: written }, "");
  }
})();
