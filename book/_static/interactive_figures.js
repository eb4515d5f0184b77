// Kernel-free interactive figures (rope_lib.widgets.InteractiveFigure.static_html).
// Each range input selects one value of its control; the image shows the frame that
// rope_lib pre-rendered for that combination, with its description as alt text.
(function () {
  "use strict";

  function wire(root) {
    var frames = JSON.parse(root.querySelector("script.rope-frames").textContent);
    var image = root.querySelector("img.rope-frame");
    var sliders = Array.prototype.slice.call(root.querySelectorAll("input.rope-control"));

    function update() {
      var key = sliders.map(function (s) { return s.value; }).join(",");
      var frame = frames[key];
      image.src = frame.src;
      image.alt = frame.alt;
      sliders.forEach(function (s) {
        var text = JSON.parse(s.dataset.labels)[Number(s.value)];
        s.setAttribute("aria-valuetext", text);
        root.querySelector('output[for="' + s.id + '"]').textContent = text;
      });
    }

    sliders.forEach(function (s) { s.addEventListener("input", update); });
  }

  function wireAll() {
    Array.prototype.forEach.call(document.querySelectorAll(".rope-interactive"), wire);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", wireAll);
  } else {
    wireAll();
  }
})();
