/* Reader chrome, loaded on every page before Material's bundle (overrides/main.html).

   1. Language links keep the section being read: the language menu (a[hreflang]) points to this page in
      the other languages, whose heading ids are the English ones; its links take the address's #fragment.
   2. Search, made precise for Chinese and accent-blind for French, around Material's own search worker:
      - Chinese: Material's worker splits a run of Han characters into the longest words of its index, but
        never tries the run's last character as part of a word (its inner loop stops one short), so
        「张量」 is searched as 「张*」 and finds every page with 张 (the counting word for cards). A
        trailing 〇 after each Han run, which that loop never reads, lets the whole run be tried:
        「张量〇」 is searched as 「张量*」. Measured with Material 9.8's worker in Node on the Chinese index:
        张量 10 pages -> 7 (exactly the pages whose text has 张量).
      - Accents: each page of the index gets a field "folded" listing its words that carry diacritics,
        without them (parallélisme -> parallelisme), and the query is searched as typed, so « parallelisme »
        finds « parallélisme » and « parallélisme » still finds itself. Nothing more is downloaded: the
        field is made here, from the index the page already loads.
      Both act on the two messages Material sends its worker (0: set up with the index, 2: a query). */
(function () {
  "use strict";

  /* 1. Language links keep the #section */
  function keepSection() {
    document.querySelectorAll("a[hreflang]").forEach(function (link) {
      if (!link.closest(".md-header, .md-footer")) return;
      var target = new URL(link.href, location.href);
      target.hash = location.hash;
      link.href = target.href;
    });
  }
  document.addEventListener("DOMContentLoaded", keepSection);
  window.addEventListener("hashchange", keepSection);
  /* Other scripts (the configurator) rewrite these links: set the fragment again as a link is used. */
  ["pointerdown", "focusin", "mouseover"].forEach(function (type) {
    document.addEventListener(type, function (event) {
      if (event.target instanceof Element && event.target.closest("a[hreflang]")) keepSection();
    }, true);
  });

  /* 2. Search */
  var HAN_RUN = /\p{Script=Han}+/gu;
  var MARKED = /\p{M}/gu;
  function foldedWords(text) {
    var seen = {};
    (String(text || "").replace(/<[^>]+>/g, " ").match(/[\p{L}\p{M}]+/gu) || []).forEach(function (word) {
      var plain = word.normalize("NFD").replace(MARKED, "");
      if (plain !== word) seen[plain.toLowerCase()] = true;
    });
    return Object.keys(seen).join(" ");
  }
  var post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (message) {
    if (message && message.type === 0 && message.data && message.data.config && Array.isArray(message.data.docs)) {
      message.data.config.fields = Object.assign({ folded: { boost: 1 } }, message.data.config.fields);
      message.data.docs.forEach(function (doc) {
        doc.folded = foldedWords((doc.title || "") + " " + (doc.text || ""));
      });
    } else if (message && message.type === 2 && typeof message.data === "string") {
      message = { type: 2, data: message.data.replace(HAN_RUN, "$&\u3007") };
      return post.call(this, message);
    }
    return post.apply(this, arguments);
  };
})();
