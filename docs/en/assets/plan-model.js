// The plan of the Plan page, line for line as Python makes it from the same published figures (api/plan.json and
// api/plan/<model>.json, ``withModel`` joins the two): reading the figures between their steps as
// sizing/views/plan_figures.py does, the load of a copy as sizing/engine/load.py takes it, and the plan's own
// decisions as sizing/views/plan.py takes them. A pure function of (document, requirement), also in steps
// (``planSteps``): it runs in the page and under node (tests/unit/test_plan_script.py holds it to python -m
// sizing.plan on a seeded grid of requirements).
(function (root, factory) {
  "use strict";
  if (typeof module === "object" && module.exports) module.exports = factory();
  else root.PlanModel = factory();
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";
  const SOLVER_STEPS = 32;  // sizing/engine/load.py's: as many steps at most as Python makes
  const SOLVER_TOLERANCE = 1e-12;  // and the same end to a closed loop's steps
  const RATE_STEPS = 20;    // sizing/views/plan.py's

  // --- reading between the steps (plan_figures.py) ---------------------------------------------------------------
  function segment(xs, x) {
    let i = 0;
    while (i < xs.length - 2 && x > xs[i + 1]) i += 1;
    return i;
  }

  function linear(xs, ys, x) {
    if (ys.length === 1) return ys[0];
    const i = segment(xs, x);
    return ys[i] + (ys[i + 1] - ys[i]) * (x - xs[i]) / (xs[i + 1] - xs[i]);
  }

  function powerLaw(xs, ys, x) {
    const i = segment(xs, x);
    const slope = Math.log(ys[i + 1] / ys[i]) / Math.log(xs[i + 1] / xs[i]);
    return ys[i] * Math.exp(slope * Math.log(x / xs[i]));
  }

  function copyFigures(doc, model, index) {
    const row = model.copies[index];
    const named = {};
    doc.copy.forEach((name, i) => { named[name] = row[i]; });
    return named;
  }

  function copyAt(doc, model, candidate, contextTokens) {
    const figures = copyFigures(doc, model, candidate.copy);
    const [low, high] = figures.fp8_contexts;
    if (candidate.kvCacheDtype === "fp8" || low === undefined || contextTokens < low || contextTokens > high) {
      return { figures, kvCacheDtype: candidate.kvCacheDtype };
    }
    const sibling = model.candidates.find((c) => c[0] === candidate.configuration && c[1] === candidate.precision
      && c[2] === candidate.cardsPerCopy && c[3] === "fp8");
    return { figures: copyFigures(doc, model, sibling[4]), kvCacheDtype: "fp8" };
  }

  function pointsAround(copy, contextTokens) {
    const points = copy.figures.kv_room;
    if (points.length === 1) return [points[0], points[0]];
    const i = segment(points.map((p) => p[0]), contextTokens);
    return [points[i], points[i + 1]];
  }

  function mostStreams(copy, contextTokens) {
    const [before, after] = pointsAround(copy, contextTokens);
    return contextTokens >= after[0] ? after[3] : before[3];
  }

  function streamsThatFit(copy, contextTokens) {
    const [before, after] = pointsAround(copy, contextTokens);
    let room = before[1];
    let stream = before[2];
    if (before !== after) {
      const xs = [before[0], after[0]];
      room = linear(xs, [before[1], after[1]], contextTokens);
      stream = linear(xs, [before[2], after[2]], contextTokens);
    }
    if (room <= 0) return 0;
    return Math.max(0, Math.min(Math.floor(room / stream + 1e-9), mostStreams(copy, contextTokens)));
  }

  function rowAt(model, row, streams) {
    return linear(model.streams.slice(0, row.length), row, streams);
  }

  function stepSeconds(model, copy, streams, contextTokens) {
    const rows = copy.figures.step_ms;
    if (rows.length === 1) return rowAt(model, rows[0], streams) / 1e3;
    const i = segment(model.contexts, contextTokens);
    const at = [rowAt(model, rows[i], streams), rowAt(model, rows[i + 1], streams)];
    return linear(model.contexts.slice(i, i + 2), at, contextTokens) / 1e3;
  }

  function promptSeconds(doc, model, copy, promptTokens) {
    return powerLaw(doc.prompt_tokens, model.prompt_ms[copy.figures.prompt_row], promptTokens) / 1e3;
  }

  function promptPeakShare(doc, model, copy, promptTokens, rate) {
    const gflop = powerLaw(doc.prompt_tokens, model.prompt_gflop, promptTokens);
    return rate * gflop / (copy.figures.peak_tflops * 1e3);
  }

  // --- one copy under load (sizing/engine/load.py) -------------------------------------------------------------
  const SATURATED = {
    requestsPerS: Infinity, streams: Infinity, promptShare: 1, lineShare: 1, stepSeconds: Infinity,
    ttftSeconds: Infinity, ttftAtMostSeconds: Infinity, saturated: true,
  };

  function freeBatchTokens(times, streams) {
    return times.batchTokens - Math.max(streams - 1, 0);
  }

  function ownSeconds(times, streams) {
    const free = freeBatchTokens(times, streams);
    const sharedStep = streams > 1 ? times.decodeStepSeconds(streams - 1) : 0;
    const steps = Math.ceil(times.promptTokens / free);
    return times.promptSeconds + steps * Math.max(sharedStep, times.chunkSeconds);
  }

  function lineSeconds(times, streams) {
    const free = freeBatchTokens(times, streams);
    if (free <= 0) return Infinity;
    const sharedStep = streams > 1 ? times.decodeStepSeconds(streams - 1) : times.chunkSeconds;
    return times.promptSeconds + times.promptTokens / free * sharedStep;
  }

  function meanWaitSeconds(lineShare, serviceSeconds) {
    if (lineShare >= 1) return Infinity;
    return lineShare * serviceSeconds / (2 * (1 - lineShare));
  }

  function tailWaitSeconds(lineShare, serviceSeconds, percentile) {
    if (lineShare >= 1) return Infinity;
    const beyond = 1 - percentile;
    if (lineShare <= beyond) return 0;
    return serviceSeconds / (2 * (1 - lineShare)) * Math.log(lineShare / beyond);
  }

  // what a load does not owe to its rate (sizing/engine/load.py's LoadByRate): the time a prompt takes in line
  // and alone, the decode step, worked out once for a solver that tries many rates at the same streams
  function byRate(times, streams, othersShare) {
    return {
      times, streams, othersShare,
      line: lineSeconds(times, streams),
      decodeStep: times.decodeStepSeconds(streams),
      alone: times.requestSeconds + ownSeconds(times, streams),
    };
  }

  function loadAt(times, requestsPerS, streams, othersShare) {
    return loadByRate(byRate(times, streams, othersShare), requestsPerS);
  }

  function loadByRate(fixed, requestsPerS) {
    const { times, streams, line, alone } = fixed;
    const others = requestsPerS * fixed.othersShare;
    const promptShare = others * times.promptSeconds;
    const lineShare = others * line;
    if (promptShare >= 1 || lineShare >= 1) return SATURATED;
    const step = fixed.decodeStep / (1 - promptShare);
    return {
      requestsPerS,
      streams,
      promptShare,
      lineShare,
      stepSeconds: step,
      ttftSeconds: alone + meanWaitSeconds(lineShare, line),
      ttftAtMostSeconds: alone * times.promptTailFactor + tailWaitSeconds(lineShare, line, times.percentile),
      saturated: false,
    };
  }

  function cycleSeconds(load, outputTokens) {
    return load.ttftSeconds + outputTokens * load.stepSeconds;
  }

  // how fast a cycle grows with the rate below saturation (sizing/engine/load.py's LoadByRate.cycle_slope)
  function cycleSlope(fixed, requestsPerS, outputTokens) {
    const others = requestsPerS * fixed.othersShare;
    const idle = 1 - others * fixed.line;
    const free = 1 - others * fixed.times.promptSeconds;
    const wait = fixed.othersShare * fixed.line * fixed.line / (2 * idle * idle);
    const answer = outputTokens * fixed.decodeStep * fixed.othersShare * fixed.times.promptSeconds;
    return wait + answer / (free * free);
  }

  function closedLoop(times, users, outputTokens) {
    if (users <= 1) {
      const alone = loadAt(times, 0, 1, 0);
      return { ...alone, requestsPerS: 1 / cycleSeconds(alone, outputTokens) };
    }
    const share = (users - 1) / users;
    const line = lineSeconds(times, users);
    if (!Number.isFinite(line)) return SATURATED;
    // Newton's steps inside the bracket known so far, as sizing/engine/load.py's closed_loop takes them
    const fixed = byRate(times, users, share);
    let low = 0;
    let high = 1 / (share * line);
    let rate = 0;
    for (let i = 0; i < SOLVER_STEPS; i += 1) {
      const cycle = cycleSeconds(loadByRate(fixed, rate), outputTokens);
      const excess = rate * cycle - users;
      if (excess < 0) low = rate;
      else high = rate;
      const following = rate - excess / (cycle + rate * cycleSlope(fixed, rate, outputTokens));
      if (Math.abs(following - rate) <= rate * SOLVER_TOLERANCE) break;
      rate = low < following && following < high ? following : (low + high) / 2;
    }
    return loadByRate(fixed, rate);
  }

  function steadyRate(times, requestsPerS, outputTokens, most) {
    const decoding = (streams) => {
      const at = loadAt(times, requestsPerS, Math.max(streams, 1), 1);
      return at.saturated ? Infinity : requestsPerS * outputTokens * at.stepSeconds;
    };
    if (decoding(most) > most) return SATURATED;
    let low = 0;
    let high = most;
    for (let i = 0; i < SOLVER_STEPS; i += 1) {
      const middle = (low + high) / 2;
      if (decoding(middle) > middle) low = middle;
      else high = middle;
    }
    return loadAt(times, requestsPerS, Math.max(high, 1), 1);
  }

  function loadOfArrival(times, arrival, outputTokens, most) {
    if (arrival.kind === "closed") return closedLoop(times, arrival.users, outputTokens);
    return steadyRate(times, arrival.requestsPerS, outputTokens, most);
  }

  // --- the plan (sizing/views/plan.py) -------------------------------------------------------------------------
  function contextOf(requirement) {
    return requirement.prompt_tokens + requirement.output_tokens;
  }

  function decodeContextOf(requirement) {
    return requirement.prompt_tokens + Math.floor(requirement.output_tokens / 2);
  }

  // the decode step read once per count of streams: the solver asks for the same two counts on each of its steps
  function copyTimes(doc, model, copy, requirement) {
    const context = decodeContextOf(requirement);
    const steps = new Map();
    const decodeStepSeconds = (streams) => {
      if (!steps.has(streams)) steps.set(streams, stepSeconds(model, copy, Math.max(streams, 1), context));
      return steps.get(streams);
    };
    return {
      decodeStepSeconds,
      promptTokens: requirement.prompt_tokens,
      promptSeconds: promptSeconds(doc, model, copy, requirement.prompt_tokens),
      chunkSeconds: copy.figures.chunk_ms / 1e3,
      batchTokens: copy.figures.batch_tokens,
      requestSeconds: copy.figures.request_ms / 1e3,
      promptTailFactor: doc.prompt_tail_factor,
      percentile: doc.ttft_percentile,
    };
  }

  function loadOn(doc, model, candidate, requirement, arrival) {
    const context = contextOf(requirement);
    const copy = copyAt(doc, model, candidate, context);
    const times = copyTimes(doc, model, copy, requirement);
    const found = loadOfArrival(times, arrival, requirement.output_tokens, mostStreams(copy, context));
    const fitting = streamsThatFit(copy, context);
    const users = arrival.kind === "closed" ? arrival.users : found.streams;
    const typical = found.saturated ? 0 : 1 / found.stepSeconds;
    const peak = promptPeakShare(doc, model, copy, requirement.prompt_tokens, found.requestsPerS);
    return {
      users,
      requestsPerS: found.requestsPerS,
      fits: !found.saturated && fitting >= Math.ceil(users),
      streamsThatFit: fitting,
      typical,
      floor: typical * doc.floor_factor,
      ttft: found.ttftSeconds,
      ttftAtMost: found.ttftAtMostSeconds,
      promptPeakShare: found.saturated ? Infinity : peak,
      kvCacheDtype: copy.kvCacheDtype,
      saturated: found.saturated,
    };
  }

  function failedConstraint(doc, load, requirement) {
    if (!load.fits && !load.saturated) return "memory";
    if (load.saturated || load.floor < requirement.min_tokens_per_s_per_user) return "speed";
    if (requirement.max_ttft_s != null && load.ttftAtMost > requirement.max_ttft_s) return "ttft";
    if (load.promptPeakShare > doc.max_prompt_peak_share) return "prompts";
    return null;
  }

  function usersPerCopy(doc, model, candidate, requirement) {
    const context = contextOf(requirement);
    const copy = copyAt(doc, model, candidate, context);
    const cap = mostStreams(copy, context);
    const failed = (users) => failedConstraint(doc, loadOn(doc, model, candidate, requirement, { kind: "closed", users }), requirement);
    const first = failed(1);
    if (first !== null) return [0, first];
    if (requirement.users <= 1) return [1, "users"];
    // up to the streams whose cache fits (more fail on memory), that count tried first
    let low = 1;
    let high = Math.min(cap, requirement.users, Math.max(streamsThatFit(copy, context), 1));
    if (high > low && failed(high) === null) low = high;
    high -= 1;
    while (low < high) {
      const middle = Math.floor((low + high + 1) / 2);
      if (failed(middle) === null) low = middle;
      else high = middle - 1;
    }
    if (low >= requirement.users) return [low, "users"];
    if (low >= cap) return [low, "engine_cap"];
    return [low, failed(low + 1)];
  }

  function ratePerCopy(doc, model, candidate, requirement) {
    const copy = copyAt(doc, model, candidate, contextOf(requirement));
    const ceiling = 1 / promptSeconds(doc, model, copy, requirement.prompt_tokens);
    const total = (requirement.requests_per_minute || 0) / 60;
    const failed = (rate) => failedConstraint(doc, loadOn(doc, model, candidate, requirement, { kind: "poisson", requestsPerS: rate }), requirement);
    const trickle = Math.min(total, ceiling) * 1e-6;
    const first = failed(trickle);
    if (first !== null) return [0, first];
    if (failed(total) === null) return [total, "users"];
    let low = trickle;
    let high = Math.min(total, ceiling);
    for (let i = 0; i < RATE_STEPS; i += 1) {
      const middle = (low + high) / 2;
      if (failed(middle) === null) low = middle;
      else high = middle;
    }
    const stopped = failed(high);
    return [low, stopped === null ? "speed" : stopped];
  }

  function requestSeconds(load, requirement) {
    return load.ttft + requirement.output_tokens / load.typical;
  }

  function optionFor(doc, model, candidate, requirement) {
    const configuration = doc.configurations[candidate.configuration];
    const copiesPerNode = Math.floor(configuration.cards / candidate.cardsPerCopy);
    let nodes; let usersPerNode; let load; let tokensPerS; let users; let binding;
    if (requirement.requests_per_minute == null) {
      const [perCopy, stopped] = usersPerCopy(doc, model, candidate, requirement);
      if (perCopy === 0) return null;
      binding = stopped;
      nodes = Math.ceil(requirement.users / (perCopy * copiesPerNode));
      if (nodes === 1) binding = "users";
      usersPerNode = Math.ceil(requirement.users / nodes);
      const busiest = Math.ceil(usersPerNode / copiesPerNode);
      load = loadOn(doc, model, candidate, requirement, { kind: "closed", users: busiest });
      tokensPerS = requirement.users * requirement.output_tokens / requestSeconds(load, requirement);
      users = requirement.users;
    } else {
      const [rate, stopped] = ratePerCopy(doc, model, candidate, requirement);
      if (rate === 0) return null;
      binding = stopped;
      const total = requirement.requests_per_minute / 60;
      nodes = Math.ceil(total / (rate * copiesPerNode) - 1e-9);
      if (nodes === 1) binding = "users";
      const perCopyRate = total / (nodes * copiesPerNode);
      load = loadOn(doc, model, candidate, requirement, { kind: "poisson", requestsPerS: perCopyRate });
      usersPerNode = Math.ceil(load.users * copiesPerNode);
      tokensPerS = total * requirement.output_tokens;
      users = Math.ceil(load.users * copiesPerNode * nodes);
    }
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
      usdPerMillionTokens: monthly / (doc.hours_per_month * 3600 * tokensPerS) * 1e6,
      binding,
      users,
      meets: true,
    };
  }

  // --- every option ---------------------------------------------------------------------------------------------
  function modelOf(doc, requirement) {
    const model = doc.models[requirement.model];
    if (!model || !model.candidates) throw new Error("unknown model: " + requirement.model);  // or its figures not joined
    return model;
  }

  // api/plan.json with one model's api/plan/<model>.json joined to its entry
  function withModel(doc, figures) {
    return { ...doc, models: { ...doc.models, [figures.model]: { ...doc.models[figures.model], ...figures } } };
  }

  function candidates(model, requirement) {
    return model.candidates
      .filter((c) => (requirement.precision == null || c[1] === requirement.precision)
        && (requirement.configuration == null || c[0] === requirement.configuration))
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

  function fewestNodes(doc, model, candidate, requirement) {
    const copies = Math.floor(doc.configurations[candidate.configuration].cards / candidate.cardsPerCopy);
    const context = contextOf(requirement);
    const copy = copyAt(doc, model, candidate, context);
    if (requirement.requests_per_minute == null) {
      const most = Math.min(streamsThatFit(copy, context), requirement.users);
      return Math.ceil(requirement.users / (Math.max(most, 1) * copies));
    }
    const total = requirement.requests_per_minute / 60;
    return Math.ceil(total * promptSeconds(doc, model, copy, requirement.prompt_tokens) / copies - 1e-9);
  }

  // the first place (as byPrice orders) an option of the candidate could take, before its load is worked out: the
  // price of its fewest nodes, its KV cache, and (for users) a user's speed on the busiest copy with no prompt
  function leastKey(doc, model, candidate, requirement) {
    const context = contextOf(requirement);
    const copy = copyAt(doc, model, candidate, context);
    const nodes = fewestNodes(doc, model, candidate, requirement);
    const configuration = doc.configurations[candidate.configuration];
    let fastest = Infinity;
    if (requirement.requests_per_minute == null) {
      const copies = Math.floor(configuration.cards / candidate.cardsPerCopy);
      const busiest = Math.ceil(Math.ceil(requirement.users / nodes) / copies);
      const most = mostStreams(copy, context);
      const running = most > 0 && most < busiest ? most : busiest;
      fastest = 1 / copyTimes(doc, model, copy, requirement).decodeStepSeconds(running);
    }
    return {
      pricePerMonthUsd: nodes * configuration.price_per_month_usd, kvCacheDtype: copy.kvCacheDtype,
      load: { typical: fastest }, configuration: candidate.configuration,
    };
  }

  // the plan in steps, one candidate each: a generator whose value is the plan, which a page runs a few steps per
  // turn so that no task blocks it for long (a model has hundreds of candidates), and ``plan`` runs at once.
  // Candidates are worked out in the order of the lowest key their option could have, and one whose option could
  // not come before the best found on its configuration is not.
  function* planSteps(doc, requirement) {
    const model = modelOf(doc, requirement);
    const found = [];
    const best = new Map();
    const keyed = candidates(model, requirement).map((candidate) => [leastKey(doc, model, candidate, requirement), candidate]);
    keyed.sort((a, b) => byPrice(a[0], b[0]));  // the lowest key first (a stable sort: the figures' order at a tie)
    for (const [key, candidate] of keyed) {
      const known = best.get(candidate.configuration);
      if (known === undefined || byPrice(key, known) < 0) {
        const option = optionFor(doc, model, candidate, requirement);
        if (option !== null) {
          found.push(option);
          if (known === undefined || byPrice(option, known) < 0) best.set(candidate.configuration, option);
        }
      }
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
  function shortfalls(doc, requirement) {
    const model = modelOf(doc, requirement);
    return candidates(model, requirement)
      .map((candidate) => ({ candidate, load: loadOn(doc, model, candidate, requirement, { kind: "closed", users: 1 }) }))
      .filter((s) => s.load.fits);
  }

  function gap(shortfall, requirement) {
    const speed = requirement.min_tokens_per_s_per_user / shortfall.load.floor;
    const ttft = requirement.max_ttft_s == null ? 1 : shortfall.load.ttftAtMost / requirement.max_ttft_s;
    return Math.max(speed, ttft, 1);
  }

  function relaxed(requirement, load) {
    const maxTtft = requirement.max_ttft_s == null ? null : Math.max(requirement.max_ttft_s, load.ttftAtMost);
    return {
      ...requirement,
      min_tokens_per_s_per_user: Math.min(requirement.min_tokens_per_s_per_user, load.floor),
      max_ttft_s: maxTtft,
    };
  }

  function closest(doc, requirement, count = 3) {
    const model = modelOf(doc, requirement);
    const price = (s) => doc.configurations[s.candidate.configuration].price_per_month_usd;
    const nearest = shortfalls(doc, requirement)
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
    const found = shortfalls(doc, requirement);
    if (found.length === 0) return [{ kind: "no_fit", value: 0, configuration: "", precision: "" }];
    const parts = [];
    const fastest = found.reduce((best, s) => (s.load.floor > best.load.floor ? s : best));
    if (fastest.load.floor < requirement.min_tokens_per_s_per_user) {
      parts.push({ kind: "speed", value: fastest.load.floor, configuration: fastest.candidate.configuration, precision: fastest.candidate.precision });
    }
    const quickest = found.reduce((best, s) => (s.load.ttftAtMost < best.load.ttftAtMost ? s : best));
    if (requirement.max_ttft_s != null && quickest.load.ttftAtMost > requirement.max_ttft_s) {
      parts.push({ kind: "ttft", value: quickest.load.ttftAtMost, configuration: quickest.candidate.configuration, precision: quickest.candidate.precision });
    }
    if (parts.length === 0) parts.push({ kind: "both", value: 0, configuration: "", precision: "" });
    return parts;
  }

  return { plan, planSteps, closest, relax, withModel };
});
