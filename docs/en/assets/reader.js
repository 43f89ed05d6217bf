/* Reader chrome, loaded on every page before Material's bundle (overrides/main.html): language links keep the
   section being read. The language menu (a[hreflang]) points to this page in the other languages, whose heading
   ids are the English ones; its links take the address's #fragment. (Search is the site's worker's:
   overrides/assets/javascripts/workers/readers-search.js.) */
(function () {
  "use strict";

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
})();
