// Stepping through a game without a reload: a move link (or a step link) fetches the
// page at that ply (?ply=N, the same page the link opens without script) and swaps in
// its board and move list. Without script the links simply load that page.
(function () {
  "use strict";
  var section = document.querySelector("section.game-board");
  if (!section || !window.fetch || !window.DOMParser) return;
  function show(url, push) {
    fetch(url, { headers: { Accept: "text/html" } })
      .then(function (answer) { if (!answer.ok) throw new Error(answer.status); return answer.text(); })
      .then(function (html) {
        var fresh = new DOMParser().parseFromString(html, "text/html").querySelector("section.game-board");
        if (!fresh) { window.location.href = url; return; }
        section.innerHTML = fresh.innerHTML;
        section.dataset.ply = fresh.dataset.ply;
        if (push) history.pushState({ ply: fresh.dataset.ply }, "", url);
      })
      .catch(function () { window.location.href = url; });
  }
  section.addEventListener("click", function (event) {
    var link = event.target.closest("a[data-ply]");
    if (!link || event.ctrlKey || event.metaKey || event.shiftKey || event.button) return;
    event.preventDefault();
    show(link.href, true);
  });
  window.addEventListener("popstate", function () { show(window.location.href, false); });
})();
