/* The site's search worker: Material's own (its URL comes as ?material=…), with what readers type found.
   1. Accents and ligatures fold on both sides: "noeud" finds "nœud", "parallelisme" finds "parallélisme".
      Every word lunr indexes or looks up passes through lunr.Token, so folding there folds both; the text
      shown keeps its accents (results are highlighted by position, not by word).
   2. Chinese queries are cut into the index's own words, longest first ("张量并行" → 张量 并行, "每小时" →
      每 小时), and each word the index holds is required. Material's own cut (an experimental greedy one)
      never tries a word that ends the query, and marks every word but the last as missing: it is turned off
      by making the index answer "no" to its one question (`word in index`).
   This file lives beside Material's worker so that Material's "../lunr" language files resolve the same. */
"use strict";

var HAN = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+/g;
var LONGEST_WORD = 8;
var words = new Set();  /* every Chinese word of the index, as Material's separator cuts the texts */

function fold(value) {
  return value.normalize("NFD").replace(/[\u0300-\u036f]/g, "")
    .replace(/œ/g, "oe").replace(/Œ/g, "OE").replace(/æ/g, "ae").replace(/Æ/g, "AE");
}

function indexWords(docs, separator) {
  var split = new RegExp(separator);
  docs.forEach(function (doc) {
    [doc.title, doc.text].forEach(function (field) {
      String(field || "").replace(/<[^>]*>/g, " ").split(split).forEach(function (word) {
        if (/^[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+$/.test(word)) words.add(word);
      });
    });
  });
}

/* A run of Chinese characters as the index's words, longest match first; a character no word starts with
   stands alone. */
function chineseWords(run) {
  var found = [];
  for (var start = 0; start < run.length;) {
    var length = Math.min(LONGEST_WORD, run.length - start);
    while (length > 1 && !words.has(run.slice(start, start + length))) length--;
    found.push(run.slice(start, start + length));
    start += length;
  }
  return found;
}

function readersQuery(query) {
  return fold(query).replace(HAN, function (run) {
    var parts = chineseWords(run);
    if (parts.length === 1) return run;
    return parts.map(function (word) { return words.has(word) ? "+" + word + "*" : word; }).join(" ");
  });
}

/* Before Material's own handler, which reads the same message: a set-up message brings the documents, a
   query message a string. */
addEventListener("message", function (event) {
  var message = event.data;
  if (message && typeof message.data === "string") {
    message.data = readersQuery(message.data);
  } else if (message && message.data && Array.isArray(message.data.docs)) {
    indexWords(message.data.docs, message.data.config.separator);
  }
});

importScripts(new URL(location.href).searchParams.get("material"));

(function (lunr) {
  var Token = lunr.Token;
  lunr.Token = function (str, metadata) {
    Token.call(this, fold(str || ""), metadata);
  };
  lunr.Token.prototype = Token.prototype;

  var build = lunr.Builder.prototype.build;
  lunr.Builder.prototype.build = function () {
    var index = build.call(this);
    index.invertedIndex = new Proxy(index.invertedIndex, { has: function () { return false; } });
    return index;
  };
})(self.lunr);
