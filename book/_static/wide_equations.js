// A displayed equation wider than its column scrolls sideways inside its own box (book.css). Browsers that hide
// scroll bars until one scrolls (phones, macOS, headless Chromium) would give no sign of the hidden part, so each
// such equation is marked on the side where more of it lies, and book.css shades that edge. Marked once MathJax has
// typeset the page, and again when the window changes size or the equation scrolls.
(function () {
  "use strict";

  function mark(box) {
    var more = box.scrollWidth - box.clientWidth;
    box.classList.toggle("rope-more-right", more > 1 && box.scrollLeft < more - 1);
    box.classList.toggle("rope-more-left", more > 1 && box.scrollLeft > 1);
  }

  function markAll() {
    document.querySelectorAll("div.math mjx-container").forEach(function (box) {
      if (!box.dataset.ropeWatched) {
        box.dataset.ropeWatched = "1";
        box.addEventListener("scroll", function () { mark(box); }, { passive: true });
      }
      mark(box);
    });
  }

  function start() {
    var typeset = window.MathJax && MathJax.startup && MathJax.startup.promise;
    (typeset || Promise.resolve()).then(markAll);
    window.addEventListener("resize", markAll);
    document.addEventListener("toggle", markAll, true);  // a dropdown opened: its equations now have a width
    document.addEventListener("click", function () { window.setTimeout(markAll, 0); });
  }

  if (document.readyState === "complete") { start(); } else { window.addEventListener("load", start); }
})();
