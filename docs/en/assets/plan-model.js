// The plan of the Plan page: sizing.views.plan over the figures of api/plan.json and api/plan/<model>.json
// (``withModel`` joins the two). The physics stays in Python; this reads the published figures (the room for the
// KV cache and one stream's cache at a ladder of contexts, decode steps at a ladder of streams and contexts, prompt
// times at a ladder of prompts), interpolates them, and takes the plan's own decisions as sizing/views/plan.py
// takes them. A pure function of (document, requirement), also in steps (``planSteps``): it runs in the page and
// under node (tests/unit/test_plan_script.py holds it within 2 % of python -m sizing.plan).
(function (root, factory) {
  "use strict";
  if (typeof module === "object" && module.exports) module.exports = factory();
  else root.PlanModel = factory();
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";
  const RATE_ITERATIONS = 8;

  // --- interpolation --------------------------------------------------------------------------------------------
  function segment(xs, x) {
    let i = 0;
    while (i < xs.length - 2 && x > xs[i + 1]) i += 1;
    return i;
  }

  // straight between the two steps of the ladder around x (beyond its ends, the nearest two carried on)
  function linear(xs, ys, x) {
    if (ys.length === 1) return ys[0];
    const i = segment(xs, x);
    return ys[i] + (ys[i + 1] - ys[i]) * (x - xs[i]) / (xs[i + 1] - xs[i]);
  }

  // straight on logarithmic scales: a power of the prompt between two steps (compute grows with its square)
  function powerLaw(xs, ys, x) {
    const i = segment(xs, x);
    const slope = Math.log(ys[i + 1] / ys[i]) / Math.log(xs[i + 1] / xs[i]);
    return ys[i] * Math.exp(slope * Math.log(x / xs[i]));
  }

  // --- one copy -------------------------------------------------------------------------------------------------
  function copyFigures(model, index) {
    const [kvRoom, fp8Contexts, stepMs, promptRow, chunkMs, requestMs] = model.copies[index];
    return { kvRoom, fp8Contexts, stepMs, prompt: model.prompt_ms[promptRow], chunkMs, requestMs };
  }

  // the candidate as the estimator runs it at this context: a 16-bit cache the verdict cannot hold goes to FP8
  function copyAt(doc, model, candidate, contextTokens) {
    const figures = copyFigures(model, candidate.copy);
    const [low, high] = figures.fp8Contexts;
    if (candidate.kvCacheDtype === "fp8" || low === undefined || contextTokens < low || contextTokens > high) {
      return { figures, kvCacheDtype: candidate.kvCacheDtype };
    }
    const sibling = model.candidates.find((c) => c[0] === candidate.configuration && c[1] === candidate.precision
      && c[2] === candidate.cardsPerCopy && c[3] === "fp8");
    return { figures: copyFigures(model, sibling[4]), kvCacheDtype: "fp8" };
  }

  // the published [context, room, one stream's cache, most streams] points around a context
  function pointsAround(copy, contextTokens) {
    const points = copy.figures.kvRoom;
    if (points.length === 1) return [points[0], points[0]];
    const i = segment(points.map((p) => p[0]), contextTokens);
    return [points[i], points[i + 1]];
  }

  // the most streams the engine runs at a context: that of the point whose setting the context has
  function mostStreams(copy, contextTokens) {
    const [p0, p1] = pointsAround(copy, contextTokens);
    return contextTokens >= p1[0] ? p1[3] : p0[3];
  }

  // streams whose cache fits: within one setting of the engine the room and one stream's cache are straight
  // between two points (a change of setting has a point on either side), so each is read straight and the
  // streams are the first over the second, rounded down, up to the most streams
  function streamsThatFit(doc, model, copy, contextTokens) {
    const [p0, p1] = pointsAround(copy, contextTokens);
    const at = (k) => (p0 === p1 ? p0[k] : linear([p0[0], p1[0]], [p0[k], p1[k]], contextTokens));
    const [room, stream] = [at(1), at(2)];
    return room > 0 ? Math.max(0, Math.min(Math.floor(room / stream + 1e-9), mostStreams(copy, contextTokens))) : 0;
  }

  // a row of decode steps at one context read at `streams` (a row stops a step beyond the streams that fit)
  function rowAt(model, row, streams) {
    return linear(model.streams.slice(0, row.length), row, streams);
  }

  function stepSeconds(doc, model, copy, streams, contextTokens) {
    const xs = model.contexts;
    const rows = copy.figures.stepMs;
    if (rows.length === 1) return rowAt(model, rows[0], streams) / 1e3;
    const i = segment(xs, contextTokens);
    const at = [rowAt(model, rows[i], streams), rowAt(model, rows[i + 1], streams)];
    return linear([xs[i], xs[i + 1]], at, contextTokens) / 1e3;
  }

  // sizing.engine.prefill.estimate_ttft: the request, the prompt alone, the steps of the others it shares, the
  // wait for the prompts ahead of it
  function ttftSeconds(doc, model, copy, requirement, streams) {
    const figures = copy.figures;
    const prompt = requirement.prompt_tokens;
    const output = requirement.output_tokens;
    const context = prompt + Math.floor(output / 2);
    const chunks = Math.ceil(prompt / doc.prefill_batch_tokens);
    const request = figures.requestMs / 1e3;
    const alone = powerLaw(doc.prompt_tokens, figures.prompt, prompt) / 1e3 + chunks * figures.chunkMs / 1e3;
    const others = streams - 1;
    const shared = others > 0 ? chunks * stepSeconds(doc, model, copy, others, context) : 0;
    const cycle = request + alone + output * stepSeconds(doc, model, copy, streams, context);
    const queue = others > 0 && cycle > 0 ? others * alone / cycle * alone / 2 : 0;
    return request + alone + shared + queue;
  }

  function loadOf(doc, model, copy, requirement, streams) {
    const context = requirement.prompt_tokens + requirement.output_tokens;
    const fitting = streamsThatFit(doc, model, copy, context);
    const typical = 1 / stepSeconds(doc, model, copy, streams, context);
    return {
      streams,
      fits: fitting >= streams,
      streamsThatFit: fitting,
      typical,
      floor: typical * doc.floor_factor,
      ttft: ttftSeconds(doc, model, copy, requirement, streams),
      kvCacheDtype: copy.kvCacheDtype,
    };
  }

  function failedConstraint(load, requirement) {
    if (!load.fits) return "memory";
    if (load.typical < requirement.min_tokens_per_s_per_user) return "speed";
    if (requirement.max_ttft_s != null && load.ttft > requirement.max_ttft_s) return "ttft";
    return null;
  }

  // --- how many users a copy serves -------------------------------------------------------------------------------
  function usersPerCopy(doc, model, copy, requirement) {
    const cap = mostStreams(copy, requirement.prompt_tokens + requirement.output_tokens);
    const first = failedConstraint(loadOf(doc, model, copy, requirement, 1), requirement);
    if (first !== null) return [0, first];
    if (requirement.users <= 1) return [1, "users"];
    let low = 1;
    let high = Math.min(cap, requirement.users);
    while (low < high) {
      const middle = Math.floor((low + high + 1) / 2);
      if (failedConstraint(loadOf(doc, model, copy, requirement, middle), requirement) === null) low = middle;
      else high = middle - 1;
    }
    if (low >= requirement.users) return [low, "users"];
    if (low >= cap) return [low, "engine_cap"];
    return [low, failedConstraint(loadOf(doc, model, copy, requirement, low + 1), requirement)];
  }

  function requestSeconds(load, outputTokens) {
    return load.ttft + outputTokens / load.typical;
  }

  function usdPerMillion(doc, monthly, requirement, load) {
    const tokensPerS = requirement.users * requirement.output_tokens / requestSeconds(load, requirement.output_tokens);
    return monthly / (doc.hours_per_month * 3600 * tokensPerS) * 1e6;
  }

  function optionForUsers(doc, model, candidate, requirement) {
    const context = requirement.prompt_tokens + requirement.output_tokens;
    const copy = copyAt(doc, model, candidate, context);
    const [perCopy, binding] = usersPerCopy(doc, model, copy, requirement);
    if (perCopy === 0) return null;
    const configuration = doc.configurations[candidate.configuration];
    const copiesPerNode = Math.floor(configuration.cards / candidate.cardsPerCopy);
    const nodes = Math.ceil(requirement.users / (perCopy * copiesPerNode));
    const usersPerNode = Math.ceil(requirement.users / nodes);
    const load = loadOf(doc, model, copy, requirement, Math.ceil(usersPerNode / copiesPerNode));
    const monthly = nodes * configuration.price_per_month_usd;
    return {
      configuration: candidate.configuration,
      precision: candidate.precision,
      cardsPerCopy: candidate.cardsPerCopy,
      candidateKvCacheDtype: candidate.kvCacheDtype,
      kvCacheDtype: load.kvCacheDtype,
      nodes,
      usersPerNode,
      load,
      pricePerMonthUsd: monthly,
      usdPerMillionTokens: usdPerMillion(doc, monthly, requirement, load),
      binding,
      users: requirement.users,
      meets: true,
    };
  }

  // requests per minute become users by Little's law with the plan's own time per request, until they settle
  function optionFor(doc, model, candidate, requirement) {
    if (requirement.requests_per_minute == null) return optionForUsers(doc, model, candidate, requirement);
    let users = 1;
    let option = null;
    for (let i = 0; i < RATE_ITERATIONS; i += 1) {
      option = optionForUsers(doc, model, candidate, { ...requirement, users });
      if (option === null) return null;
      const needed = Math.ceil(requirement.requests_per_minute / 60 * requestSeconds(option.load, requirement.output_tokens));
      if (needed <= users) return option;
      users = needed;
    }
    return optionForUsers(doc, model, candidate, { ...requirement, users });
  }

  // --- every option -----------------------------------------------------------------------------------------------
  function modelOf(doc, requirement) {
    const model = doc.models[requirement.model];
    if (!model || !model.candidates) throw new Error("unknown model: " + requirement.model);  // or its figures not joined
    return model;
  }

  // api/plan.json with one model's api/plan/<model>.json joined to its entry
  function withModel(doc, figures) {
    return { ...doc, models: { ...doc.models, [figures.model]: { ...doc.models[figures.model], ...figures } } };
  }

  function candidates(doc, model, requirement) {
    return model.candidates
      .filter((c) => requirement.precision == null || c[1] === requirement.precision)
      .map(([configuration, precision, cardsPerCopy, kvCacheDtype, copy]) => ({
        configuration, precision, cardsPerCopy, kvCacheDtype, copy,
      }));
  }

  // cheapest first; at the same price a 16-bit cache, then the faster; then by configuration id
  function byPrice(a, b) {
    return a.pricePerMonthUsd - b.pricePerMonthUsd
      || (a.kvCacheDtype === "fp8") - (b.kvCacheDtype === "fp8")
      || b.load.typical - a.load.typical
      || (a.configuration < b.configuration ? -1 : a.configuration > b.configuration ? 1 : 0);
  }

  function bestPerConfiguration(options) {
    const best = new Map();
    for (const option of [...options].sort(byPrice)) {
      if (!best.has(option.configuration)) best.set(option.configuration, option);
    }
    return [...best.values()].sort(byPrice);
  }

  // the plan in steps, one candidate each: a generator whose value is the plan, which a page runs a few steps per
  // turn so that no task blocks it for long (a model has hundreds of candidates), and ``plan`` runs at once
  function* planSteps(doc, requirement) {
    const model = modelOf(doc, requirement);
    const found = [];
    for (const candidate of candidates(doc, model, requirement)) {
      const option = optionFor(doc, model, candidate, requirement);
      if (option !== null) found.push(option);
      yield;
    }
    return bestPerConfiguration(found);
  }

  function plan(doc, requirement) {
    const steps = planSteps(doc, requirement);
    let step = steps.next();
    while (!step.done) step = steps.next();
    return step.value;
  }

  // --- when nothing meets it --------------------------------------------------------------------------------------
  function shortfalls(doc, model, requirement) {
    const context = requirement.prompt_tokens + requirement.output_tokens;
    return candidates(doc, model, requirement)
      .map((candidate) => ({ candidate, load: loadOf(doc, model, copyAt(doc, model, candidate, context), requirement, 1) }))
      .filter((s) => s.load.fits);
  }

  function gap(shortfall, requirement) {
    const speed = requirement.min_tokens_per_s_per_user / shortfall.load.typical;
    const ttft = requirement.max_ttft_s == null ? 1 : shortfall.load.ttft / requirement.max_ttft_s;
    return Math.max(speed, ttft, 1);
  }

  function relaxed(requirement, load) {
    const maxTtft = requirement.max_ttft_s == null ? null : Math.max(requirement.max_ttft_s, load.ttft);
    return {
      ...requirement,
      min_tokens_per_s_per_user: Math.min(requirement.min_tokens_per_s_per_user, load.typical),
      max_ttft_s: maxTtft,
    };
  }

  function closest(doc, requirement, count = 3) {
    const model = modelOf(doc, requirement);
    const price = (s) => doc.configurations[s.candidate.configuration].price_per_month_usd;
    const nearest = shortfalls(doc, model, requirement)
      .map((s) => ({ s, gap: Math.round(gap(s, requirement) * 1e3) / 1e3 }))
      .sort((a, b) => a.gap - b.gap || price(a.s) - price(b.s))
      .map(({ s }) => s);
    const options = [];
    for (const s of nearest) {
      const option = optionFor(doc, model, s.candidate, relaxed(requirement, s.load));
      if (option !== null && !options.some((o) => o.configuration === option.configuration)) {
        options.push({ ...option, meets: false });
      }
      if (options.length === count) break;
    }
    return options;
  }

  // what to loosen, as parts a page words in its language: [{kind: "no_fit" | "speed" | "ttft" | "both", ...}]
  function relax(doc, requirement) {
    const model = modelOf(doc, requirement);
    const found = shortfalls(doc, model, requirement);
    if (found.length === 0) {
      const formats = requirement.precision == null ? model.precisions : [requirement.precision];
      return [{ kind: "no_fit", model: requirement.model, formats, contextTokens: requirement.prompt_tokens + requirement.output_tokens }];
    }
    const parts = [];
    const fastest = found.reduce((best, s) => (s.load.typical > best.load.typical ? s : best));
    if (fastest.load.typical < requirement.min_tokens_per_s_per_user) {
      parts.push({ kind: "speed", tokensPerS: fastest.load.typical, configuration: fastest.candidate.configuration, precision: fastest.candidate.precision });
    }
    const quickest = found.reduce((best, s) => (s.load.ttft < best.load.ttft ? s : best));
    if (requirement.max_ttft_s != null && quickest.load.ttft > requirement.max_ttft_s) {
      parts.push({ kind: "ttft", seconds: quickest.load.ttft, configuration: quickest.candidate.configuration });
    }
    if (parts.length === 0) parts.push({ kind: "both" });
    return parts;
  }

  return { plan, planSteps, closest, relax, withModel };
});
