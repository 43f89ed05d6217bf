/* The site's search worker: Material's own (its URL comes as ?material=…), with what readers type found.
   1. Accents and ligatures fold on both sides: "noeud" finds "nœud", "parallelisme" finds "parallélisme".
      Every word lunr indexes or looks up passes through lunr.Token, so folding there folds both; the text
      shown keeps its accents (results are highlighted by position, not by word).
   2. Chinese queries are cut into the index's own words, longest first ("张量并行" → 张量 并行, "每小时" →
      每 小时), and each word the index holds is required (not a stop word such as 每, which lunr leaves out of
      the index; the phrase still holds it, see 3). Material's own cut (an experimental greedy one)
      never tries a word that ends the query, and marks every word but the last as missing: it is turned off
      by making the index answer "no" to its one question (`word in index`).
   3. The pages written for customers come before the reference pages (for writers, translators and the API:
      the entries the build marks `reference`), whatever the words. Then, for a query of several words, a page
      holding it as a phrase (its words in order, each starting a word of the page; in Chinese one Latin word may
      stand between two of them: 每小时 is found in "每 GPU 小时") comes before a page holding each of its words
      (but the stop words: « par », "of"), which comes before a page holding only some. Within each step lunr's
      score orders, as Material weighs it.
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

/* A stop word is never in the index (lunr leaves it out): « par » of « prix par mois » and 每 of 每小时 are not
   asked of lunr (« par* » would find « parallélisme »), only of the phrase; a query of stop words alone is asked. */
function readersQuery(query) {
  var typed = fold(query).split(/\s+/).filter(Boolean);
  var asked = typed.filter(function (word) { return !(/^[a-z]+$/i.test(word) && isStopWord(word.toLowerCase())); });
  return (asked.length ? asked : typed).join(" ").replace(HAN, function (run) {
    var parts = chineseWords(run);
    if (parts.length === 1) return run;
    var kept = parts.filter(function (word) { return !isStopWord(word); });
    return (kept.length ? kept : parts).map(function (word) {
      return words.has(word) ? "+" + word + "*" : word;
    }).join(" ");
  });
}

/* --- 3. the order of the pages a query finds -------------------------------------------------------------- */
var LETTER = "[\\p{L}\\p{N}]";
var NOT_LETTER = "[^\\p{L}\\p{N}]";
var LATIN_WORD = "[a-z0-9]" + LETTER + "*";
var pages = new Map();  /* location -> its title and text folded, tags dropped; whether it is a reference page */
var separator = /[\s\-]+/;
var ranking = null;     /* the query being answered: its phrase and each of its words, as patterns; null for one word */

function plain(value) {
  return fold(String(value || "").replace(/<[^>]*>/g, " ")).toLowerCase();
}

function literal(word) {
  return word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function isStopWord(word) {
  var lunr = self.lunr;
  var filters = [lunr.stopWordFilter, lunr.fr && lunr.fr.stopWordFilter, lunr.zh && lunr.zh.stopWordFilter];
  return filters.some(function (filter) { return filter && !filter(word); });
}

/* The query's words as the index cuts them: each a Latin word, or a run of Chinese as the index's words. */
function queryWords(query) {
  var found = [];
  fold(query).toLowerCase().split(separator).forEach(function (part) {
    part.split(/([\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+)/).forEach(function (piece, index) {
      if (index % 2) {
        found.push({ han: chineseWords(piece) });
      } else {
        piece.split(new RegExp(NOT_LETTER + "+", "u")).filter(Boolean).forEach(function (latin) {
          found.push({ latin: latin });
        });
      }
    });
  });
  return found;
}

/* A Latin word: a word of the page starting with it. A Chinese run: its words in order, one Latin word of the
   page allowed between two of them. */
function pattern(word) {
  var start = "(?<!" + LETTER + ")";
  if (word.latin) return start + literal(word.latin) + LETTER + "*";
  return start + word.han.map(literal).join(NOT_LETTER + "*(?:" + LATIN_WORD + NOT_LETTER + "*)?");
}

function rankingOf(query) {
  var found = queryWords(query);
  var several = found.length > 1 || (found.length === 1 && found[0].han && found[0].han.length > 1);
  if (!several) return null;
  return {
    phrase: new RegExp(found.map(pattern).join(NOT_LETTER + "*"), "u"),
    each: found.filter(function (word) {
      return word.han || (word.latin.length > 1 && !isStopWord(word.latin));  /* « d » of « d’experts » too */
    }).map(function (word) {
      return new RegExp(pattern(word), "u");
    }),
  };
}

/* From 0 to 5: a reference page 0 to 2, a page for customers 3 to 5, each 2 for the phrase, 1 for each word,
   0 for some. */
function rank(location) {
  var page = pages.get(location);
  if (!page) return 0;
  var holds = function (pattern) { return pattern.test(page.title) || pattern.test(page.text); };
  var step = !ranking ? 0 : holds(ranking.phrase) ? 2 : ranking.each.every(holds) ? 1 : 0;
  return (page.reference ? 0 : 3) + step;
}

/* Before Material's own handler, which reads the same message: a set-up message brings the documents, a
   query message a string. */
addEventListener("message", function (event) {
  var message = event.data;
  if (message && typeof message.data === "string") {
    ranking = rankingOf(message.data);
    message.data = readersQuery(message.data);
  } else if (message && message.data && Array.isArray(message.data.docs)) {
    separator = new RegExp(message.data.config.separator);
    indexWords(message.data.docs, message.data.config.separator);
    message.data.docs.forEach(function (doc) {
      pages.set(doc.location, { title: plain(doc.title), text: plain(doc.text), reference: Boolean(doc.reference) });
    });
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

  /* Each score scaled by its page's rank, so that a higher rank always comes first: Material then multiplies a
     score by 1 to 5 (a page above its sections, every word found) and sorts, so a rank weighs more than 5 times
     the widest ratio of two scores. */
  var search = lunr.Index.prototype.search;
  lunr.Index.prototype.search = function (query) {
    var results = search.call(this, query);
    var scores = results.map(function (result) { return result.score; }).filter(function (score) { return score > 0; });
    if (!scores.length) return results;
    var step = 5 * Math.max.apply(null, scores) / Math.min.apply(null, scores) + 1;
    results.forEach(function (result) { result.score *= Math.pow(step, rank(result.ref)); });
    return results;
  };
})(self.lunr);
