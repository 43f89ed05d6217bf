// The Plan page's form: the requirement in the page's address, the plan (assets/plan-model.js over api/plan.json)
// in a table with the worked plans' columns. Every word comes from the page's data (strings.yml); numbers are
// written with Babel's signs from the page's data as the site's Python writes them (tests/unit/test_plan_script.py
// compares them).
(function (root, factory) {
  "use strict";
  const page = factory();
  if (typeof module === "object" && module.exports) module.exports = page;
  else if (typeof document !== "undefined") page.start(document);
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";
  const FIELDS = ["model", "precision", "prompt", "output", "users", "rpm", "speed", "ttft"];

  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, (whole, key) => (key in values ? String(values[key]) : whole));
  }

  // Python's round(x, digits): to the nearest on the double's exact value, a tie to the even digit (Intl and
  // toFixed would round 34.5 up and 0.155 by its shortest decimal, 0.16; Python writes 34 and 0.15). From 1e21 on,
  // toFixed writes an exponent ("3.2e+21"), whose digits would read as another figure: such a value is refused.
  function pythonRound(value, digits) {
    if (!(Math.abs(value) < 1e21)) throw new RangeError("pythonRound: " + value);
    const [whole, fraction] = Math.abs(value).toFixed(100).split(".");
    const kept = BigInt(whole + fraction.slice(0, digits));
    const rest = fraction.slice(digits);
    const tie = rest[0] === "5" && !/[1-9]/.test(rest.slice(1));
    const up = rest[0] > "5" || (rest[0] === "5" && !tie) || (tie && kept % 2n === 1n);
    return Math.sign(value) * Number(kept + (up ? 1n : 0n)) / 10 ** digits;
  }

  // macros.output.formatting.Formatter, for the figures of a plan: Python's rounding, then the signs Babel writes in
  // the page's language (the page's data, ``numbers``), three digits to a group. No Intl: the page's first Intl
  // number format blocks it for 30-80 ms while the browser loads the language's data.
  function formatter(signs, words) {
    function number(value, digits = 0) {
      const rounded = pythonRound(value, digits);
      const [whole, fraction] = Math.abs(rounded).toFixed(digits).split(".");
      const groups = whole.replace(/\B(?=(\d{3})+$)/g, () => signs.group);
      return (rounded < 0 ? signs.minus : "") + groups + (fraction === undefined ? "" : signs.decimal + fraction);
    }
    function money(value, digits = 0) {
      return fill(signs.money, { value: number(value, digits) });
    }
    function significant(value) {
      return value >= 10 ? number(value) : number(value, value >= 1 ? 1 : 2);
    }
    function speedNumber(tokensPerS) {
      const shown = tokensPerS >= 9.95 ? pythonRound(tokensPerS, 0) : pythonRound(tokensPerS, 1);
      return shown >= 10 ? number(shown) : number(shown, 1);
    }
    function seconds(value) {
      return value >= 1 ? fill(words.seconds, { value: significant(value) })
        : fill(words.milliseconds, { value: significant(value * 1e3) });
    }
    function speedCell(typical, floor) {
      return fill(words.speed_cell, { typical: speedNumber(typical), floor: speedNumber(floor) });
    }
    return { number, money, significant, speedNumber, seconds, speedCell };
  }

  // --- the requirement, from the form or the address ------------------------------------------------------------
  function requirementOf(values) {
    const optional = (text) => (text === "" || text == null ? null : Number(text));
    return {
      model: values.model,
      precision: values.precision || null,
      prompt_tokens: Number(values.prompt),
      output_tokens: Number(values.output),
      users: Number(values.users),
      min_tokens_per_s_per_user: Number(values.speed),
      max_ttft_s: optional(values.ttft),
      requests_per_minute: optional(values.rpm),
    };
  }

  // the first field (of FIELDS) whose value is above the planner's largest (the page's data, ``maxima``: the bounds
  // of python -m sizing.plan), or null
  function tooLarge(requirement, maxima) {
    const values = {
      prompt: requirement.prompt_tokens, output: requirement.output_tokens, users: requirement.users,
      rpm: requirement.requests_per_minute, speed: requirement.min_tokens_per_s_per_user, ttft: requirement.max_ttft_s,
    };
    return FIELDS.find((name) => Object.hasOwn(maxima, name) && values[name] > maxima[name]) || null;
  }

  // what the page says of a requirement it does not plan, in its language; null for one it plans
  function refusal(data, doc, requirement) {
    const f = formatter(data.numbers, data.words);
    const field = tooLarge(requirement, data.maxima);
    if (field !== null) {
      return fill(data.words.too_large, { field: data.words["field_" + field], max: f.number(data.maxima[field]) });
    }
    if (!valid(requirement, doc)) {
      const most = doc.models[requirement.model] ? doc.models[requirement.model].max_context_tokens : 0;
      return fill(data.words.invalid, { max: f.number(most) });
    }
    return null;
  }

  function valid(requirement, doc) {
    const model = doc.models[requirement.model];
    const whole = (n) => Number.isInteger(n) && n >= 1;
    const positive = (n) => n === null || (Number.isFinite(n) && n > 0);
    return Boolean(model) && whole(requirement.prompt_tokens) && whole(requirement.output_tokens)
      && whole(requirement.users) && Number.isFinite(requirement.min_tokens_per_s_per_user)
      && requirement.min_tokens_per_s_per_user > 0 && positive(requirement.max_ttft_s)
      && positive(requirement.requests_per_minute)
      && (requirement.precision === null || model.precisions.includes(requirement.precision))
      && requirement.prompt_tokens + requirement.output_tokens <= model.max_context_tokens;
  }

  // --- what the page shows --------------------------------------------------------------------------------------
  function formatName(data, option) {
    const name = data.precisions[option.precision];
    return option.kvCacheDtype === "fp8" ? fill(data.words.kv_fp8, { format: name }) : name;
  }

  function rowCells(data, f, option) {
    return [
      data.configurations[option.configuration],
      formatName(data, option),
      f.number(option.nodes),
      f.number(option.usersPerNode),
      f.speedCell(option.load.typical, option.load.floor),
      fill(data.words.ttft_cell, { typical: f.seconds(option.load.ttft), at_most: f.seconds(option.load.ttftAtMost) }),
      f.money(option.pricePerMonthUsd),
      f.money(option.usdPerMillionTokens, 2),
      data.words["binding_" + option.binding],
    ];
  }

  function caption(data, f, requirement, users, met) {
    const ttft = requirement.max_ttft_s === null ? "" : fill(data.words.caption_ttft, { seconds: f.seconds(requirement.max_ttft_s) });
    return fill(data.words[met ? "caption" : "caption_closest"], {
      model: data.models[requirement.model],
      users: f.number(users),
      prompt: f.number(requirement.prompt_tokens),
      output: f.number(requirement.output_tokens),
      speed: fill(data.words.speed, { value: f.significant(requirement.min_tokens_per_s_per_user) }),
      ttft,
    });
  }

  function cheapestText(data, f, option) {
    const nodes = fill(data.words[option.nodes === 1 ? "nodes_one" : "nodes_other"], { count: f.number(option.nodes) });
    return fill(data.words.cheapest, {
      configuration: data.configurations[option.configuration], format: formatName(data, option), nodes,
      price: f.money(option.pricePerMonthUsd),
    });
  }

  function relaxText(data, f, parts, requirement) {
    const w = data.words;
    return parts.map((part) => {
      if (part.kind === "speed") {
        return fill(w.relax_speed, {
          speed: fill(w.speed, { value: f.number(part.value, 1) }),
          configuration: data.configurations[part.configuration], format: data.precisions[part.precision],
        });
      }
      if (part.kind === "ttft") return fill(w.relax_ttft, { seconds: f.seconds(part.value), configuration: data.configurations[part.configuration] });
      if (part.kind === "no_fit") {
        const formats = requirement.precision === null ? data.offered[requirement.model] : [requirement.precision];
        return fill(w.relax_no_fit, {
          model: data.models[requirement.model], formats: formats.map((p) => data.precisions[p]).join(", "),
          context: f.number(requirement.prompt_tokens + requirement.output_tokens),
        });
      }
      return w.relax_both;
    }).join(w.relax_separator);
  }

  // the plan in words and rows, {status, caption, headers, rows}, in steps: the model's planSteps, then one a row
  function* answer(data, doc, model, requirement) {
    const f = formatter(data.numbers, data.words);
    const options = yield* model.planSteps(doc, requirement);
    const shown = options.length ? options : model.closest(doc, requirement);
    const users = options.length ? options[0].users : requirement.users;
    const status = options.length
      ? fill(data.words[options.length === 1 ? "found_one" : "found_other"], { count: f.number(options.length), cheapest: cheapestText(data, f, options[0]) })
      : fill(data.words.none, { relax: relaxText(data, f, model.relax(doc, requirement), requirement) });
    const headers = ["col_configuration", "col_format", "col_nodes", "col_users", "col_speed", "col_ttft", "col_month",
      "col_million", "col_binding"].map((key) => data.words[key]);
    const rows = [];
    for (const option of shown) {
      rows.push(rowCells(data, f, option));
      yield;
    }
    return { status, caption: caption(data, f, requirement, users, options.length > 0), headers, rows };
  }

  // --- the page ---------------------------------------------------------------------------------------------------
  const SLICE_MS = 5;  // the longest run of steps between two turns of the page (Lighthouse's phone: 4 times as long)

  // the page's turn: its input, its frames and its other tasks go first (scheduler.yield where the browser has it)
  function turn() {
    if (typeof scheduler !== "undefined" && scheduler.yield) return scheduler.yield();
    return new Promise((resolve) => setTimeout(resolve, 0));
  }

  // runs the steps of a generator a slice at a time, each after a turn of the page, while `wanted()`; resolves to
  // the generator's value (undefined once no longer wanted)
  async function stepped(steps, wanted) {
    let step;
    do {
      await turn();
      if (!wanted()) return undefined;
      const sliceStart = performance.now();
      do step = steps.next(); while (!step.done && performance.now() - sliceStart < SLICE_MS);
    } while (!step.done);
    return step.value;
  }

  function tableOf(document, data, shown) {
    const wrapper = document.createElement("div");
    wrapper.className = "table-scroll";
    wrapper.setAttribute("role", "region");
    wrapper.tabIndex = 0;
    wrapper.setAttribute("aria-label", fill(data.words.region, { caption: shown.caption }));
    const table = wrapper.appendChild(document.createElement("table"));
    table.className = "data-table card-table";
    table.createCaption().textContent = shown.caption;
    const head = table.createTHead().insertRow();
    for (const text of shown.headers) {
      const th = head.appendChild(document.createElement("th"));
      th.scope = "col";
      th.textContent = text;
    }
    const body = table.createTBody();
    for (const cells of shown.rows) {
      const row = body.insertRow();
      cells.forEach((text, i) => {
        const cell = row.appendChild(document.createElement(i === 0 ? "th" : "td"));
        if (i === 0) cell.scope = "row";
        else cell.dataset.label = shown.headers[i];
        cell.textContent = text;
      });
    }
    return wrapper;
  }

  function start(document) {
    const root = document.querySelector(".plan-form");
    if (!root) return;
    const data = JSON.parse(root.querySelector(".plan-data").textContent);
    const form = root.querySelector(".plan-controls");
    const status = root.querySelector(".plan-status");
    const result = root.querySelector(".plan-result");
    const precisionOptions = [...form.elements.precision.options].map((o) => o.cloneNode(true));
    const loaded = new Map();  // address -> the promise of its JSON
    const api = new URL(data.api, document.baseURI);
    let planModel = null;  // the promise of assets/plan-model.js, loaded when a plan is first asked for

    function modelScript() {
      planModel = planModel || new Promise((resolve, reject) => {
        const script = document.createElement("script");
        script.src = new URL(data.model_script, document.baseURI).href;
        script.onload = () => resolve(window.PlanModel);
        script.onerror = () => { planModel = null; reject(new Error(script.src)); };
        document.head.append(script);
      });
      return planModel;
    }

    function json(url) {
      if (!loaded.has(url)) {
        loaded.set(url, fetch(url).then((response) => {
          if (!response.ok) throw new Error(url + " " + response.status);
          return response.json();
        }));
        loaded.get(url).catch(() => loaded.delete(url));  // a later try may succeed
      }
      return loaded.get(url);
    }

    // api/plan.json and the chosen model's figures (its "figures" path is relative to api/plan.json), joined
    function planDocument(model, modelId) {
      return json(api.href).then((doc) => (Object.hasOwn(doc.models, modelId)
        ? json(new URL(doc.models[modelId].figures, api).href).then((figures) => model.withModel(doc, figures))
        : doc));
    }

    function offerPrecisions() {
      const offered = data.offered[form.elements.model.value] || [];
      const chosen = form.elements.precision.value;
      form.elements.precision.replaceChildren(...precisionOptions
        .filter((o) => o.value === "" || offered.includes(o.value)).map((o) => o.cloneNode(true)));
      form.elements.precision.value = offered.includes(chosen) ? chosen : "";
    }

    function values() {
      return Object.fromEntries(FIELDS.map((name) => [name, form.elements[name].value.trim()]));
    }

    // the address's requirement, the page's own values where it says nothing (or names no model of ours)
    function fromAddress() {
      const query = new URLSearchParams(window.location.search);
      for (const name of FIELDS) {
        const wanted = query.has(name) ? query.get(name) : defaults[name];
        form.elements[name].value = name === "model" && !Object.hasOwn(data.offered, wanted) ? defaults.model : wanted;
        if (name === "model") offerPrecisions();
      }
    }

    function address() {
      const query = new URLSearchParams();
      for (const [name, value] of Object.entries(values())) query.set(name, value);  // an empty limit is no limit
      return "?" + query.toString() + window.location.hash;
    }

    let shows = 0;  // how many plans were asked for: only the last one asked writes its answer

    function show() {
      const mine = ++shows;
      const current = () => mine === shows;
      status.textContent = data.words.loading;
      result.setAttribute("aria-busy", "true");
      return planInto(requirementOf(values()), current).finally(() => {
        if (current()) result.removeAttribute("aria-busy");
      });
    }

    // the requirement's plan in the result and its sentence in the status, unless another is asked for meanwhile
    async function planInto(requirement, current) {
      const model = await modelScript().catch(() => null);
      const doc = model && await planDocument(model, requirement.model).catch(() => null);
      if (!current()) return;
      if (doc === null) {
        status.textContent = data.words.load_error;
        return;
      }
      const refused = refusal(data, doc, requirement);
      if (refused !== null) {
        status.textContent = refused;
        result.replaceChildren();
        return;
      }
      // a plan the script cannot work out (a figure it would have to make up) says so, never stays on "loading"
      const shown = await stepped(answer(data, doc, model, requirement), current).catch(() => null);
      if (!current()) return;
      if (shown === null) {
        status.textContent = data.words.no_answer;
        result.replaceChildren();
        return;
      }
      // the whole table at once: one layout and paint of the page (a few rows a frame repainted all that follows the
      // table every frame: five frames of 17-39 ms instead of one of 22-32)
      result.replaceChildren(tableOf(document, data, shown));
      status.textContent = shown.status;
    }

    // the page's own requirement comes with its plan written by the build: shown as it is, no planning on load, and
    // kept (its nodes, out of the page while another plan is shown) for going back to the page's bare address
    const written = { status: status.textContent, nodes: [...result.childNodes] };

    function showWritten() {
      ++shows;  // a plan still being made for another requirement no longer writes its answer
      result.removeAttribute("aria-busy");
      result.replaceChildren(...written.nodes);
      status.textContent = written.status;
    }

    function showAddress() {
      fromAddress();
      return window.location.search ? show() : showWritten();
    }

    const defaults = values();
    form.elements.model.addEventListener("change", offerPrecisions);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const next = address();
      if (next !== window.location.search + window.location.hash) window.history.pushState(null, "", next);
      show();
    });
    window.addEventListener("popstate", showAddress);
    fromAddress();
    if (window.location.search) show();
  }

  return { formatter, requirementOf, refusal, answer, start };
});
