// The site's search worker (overrides/assets/javascripts/workers/readers-search.js, which runs Material's) under
// Node, on a built site's index of one language: what a reader's query returns, page by page, best first.
//   node bench/search_worker.js <site> <lang> <query>...   # prints one JSON line per query: [query, [page, ...]]
// bench/search_results.py calls it; a worker's global scope is made of Node's (self, importScripts, postMessage).
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");

const [site, lang, ...queries] = process.argv.slice(2);
const workers = path.join(path.resolve(site), "assets", "javascripts", "workers");
const material = fs.readdirSync(workers).find((name) => /^search\.[0-9a-f]+\.min\.js$/.test(name));
const here = new URL(`file://${workers}/readers-search.js?material=${encodeURIComponent(`file://${workers}/${material}`)}`);

const listeners = [];
let answered = null;
globalThis.self = globalThis;
globalThis.location = here;
globalThis.addEventListener = (type, listener) => listeners.push(listener);
globalThis.postMessage = (message) => { answered = message; };
globalThis.importScripts = (...urls) => {
  for (const url of urls) {
    const file = new URL(url, here);
    vm.runInThisContext(fs.readFileSync(file, "utf-8"), { filename: file.pathname });
  }
};

async function ask(message) {
  answered = null;
  for (const listener of listeners) listener({ data: message });
  for (let i = 0; i < 1000 && answered === null; i++) await new Promise((resolve) => setTimeout(resolve, 1));
  return answered;
}

(async () => {
  importScripts(here.href);
  const index = JSON.parse(fs.readFileSync(path.join(site, "search", `search_index.${lang}.json`), "utf-8"));
  await ask({ type: 0, data: { ...index, options: { suggest: false } } });  // SETUP, then READY
  for (const query of queries) {
    const result = await ask({ type: 2, data: query });  // QUERY, then RESULT
    const pages = result.data.items.map((items) => (items.find((item) => !item.parent) || items[0]).location);
    console.log(JSON.stringify([query, pages.map((page) => page.split("#")[0])]));
  }
})();
