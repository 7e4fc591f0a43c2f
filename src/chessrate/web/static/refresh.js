// /play and /live keep themselves current: /play's waits tick every second from each
// seek's creation time, and every few seconds /play asks the JSON API (the same
// answers it was drawn from) and updates its rows in place; /live asks for itself and
// takes the server's rows, adding the games that started and moving those that ended,
// without reloading the page.
// Without script the page shows the values as they were when it loaded.
(function () {
  "use strict";
  var POLL = Number(window.chessratePoll) || 5000;  // milliseconds; a test may set it first
  function waited(seconds) {  // as the server writes a wait: 45 s, 3 min 05 s, 1 h 02 min
    seconds = Math.max(0, Math.floor(seconds));
    if (seconds < 60) return seconds + " s";
    var minutes = Math.floor(seconds / 60), rest = seconds % 60;
    if (minutes < 60) return minutes + " min " + (rest < 10 ? "0" : "") + rest + " s";
    var hours = Math.floor(minutes / 60); minutes = minutes % 60;
    return hours + " h " + (minutes < 10 ? "0" : "") + minutes + " min";
  }
  var skew = 0;  // the server's clock less this one's, from the Date of each answer
  function tick() {
    var now = Date.now() + skew;
    document.querySelectorAll("[data-since]").forEach(function (cell) {
      var text = waited((now - Date.parse(cell.dataset.since)) / 1000);
      if (cell.textContent !== text) cell.textContent = text;
    });
  }
  function ask(path) {
    return fetch(path, { headers: { Accept: "application/json" } }).then(function (answer) {
      var date = answer.headers.get("Date");
      if (date) skew = Date.parse(date) - Date.now();
      if (!answer.ok) throw new Error(answer.status);
      return answer.json();
    });
  }
  function set(row, selector, text) {
    var cell = row.querySelector(selector);
    if (cell && cell.textContent !== text) cell.textContent = text;
  }
  var seeks = document.querySelector("table.seeks.open");
  var live = document.querySelector("table.live.open");
  function poll() {
    if (document.hidden) return;
    if (seeks) {
      ask("/api/v1/seeks?limit=500&offset=" + Math.max(0, Number(seeks.dataset.offset || 0) - 50)).then(function (body) {
        var byId = {};
        body.seeks.forEach(function (s) { byId[String(s.id)] = s; });
        seeks.querySelectorAll("tr[data-id]").forEach(function (row) {
          var s = byId[row.dataset.id];
          if (!s) {
            var cell = row.querySelector("td.waiting");
            if (cell) { cell.removeAttribute("data-since"); cell.textContent = "paired or ended"; }
            row.classList.add("gone");
            return;
          }
          if (s.window !== null) set(row, "td.window", "\u00b1" + s.window);
        });
        var count = document.querySelector("p.range[data-total]");
        if (count && String(body.total) !== count.dataset.total) {
          count.dataset.total = String(body.total);
          count.textContent = body.total.toLocaleString("en") + " open seek" + (body.total === 1 ? "" : "s") + " now (reload to see the new list)";
        }
      }).catch(function () {});
    }
    if (live) {
      // /live asks for itself: the server's rows (names, links, deadlines in words)
      // replace each table's rows, so a game that started appears and one that ended
      // moves to "Recently ended", without a reload
      fetch(location.pathname, { headers: { Accept: "text/html" } }).then(function (answer) {
        if (!answer.ok) throw new Error(answer.status);
        return answer.text();
      }).then(function (html) {
        var fresh = new DOMParser().parseFromString(html, "text/html");
        var before = ids(live);
        document.querySelectorAll("table.live").forEach(function (table) {
          var kind = table.className.replace("live", "").trim();
          var theirs = fresh.querySelector("table.live." + kind + " tbody");
          var mine = table.querySelector("tbody");
          if (theirs && mine && theirs.innerHTML !== mine.innerHTML) {
            mine.replaceWith(document.importNode(theirs, true));
          }
        });
        var after = ids(live);
        var started = after.filter(function (id) { return before.indexOf(id) < 0; }).length;
        var ended = before.filter(function (id) { return after.indexOf(id) < 0; }).length;
        var words = [];
        if (started) words.push(started + " game" + (started === 1 ? " has" : "s have") + " started");
        if (ended) words.push(ended + " game" + (ended === 1 ? " has" : "s have") + " ended");
        var note = document.querySelector("p.live-news");
        if (note && words.length) note.textContent = words.join("; ") + ".";
      }).catch(function () {});
    }
  }
  function ids(table) {
    return Array.prototype.map.call(table.querySelectorAll("tr[data-id]"), function (row) {
      return row.dataset.id;
    });
  }
  if (document.querySelector("[data-since]")) setInterval(tick, 1000);
  if (seeks || live) setInterval(poll, POLL);
})();
