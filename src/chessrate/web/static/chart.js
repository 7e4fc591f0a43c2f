/* chessrate: rating charts reachable by keyboard and touch (progressive enhancement).
 *
 * Each figure[data-chart] holds a server-drawn SVG and a <details> data table of the
 * drawn points (data-x/data-y: the point's coordinates in the SVG). This script makes
 * the plot one tab stop (role "slider"): arrow keys, Home/End and PageUp/PageDown move
 * a focus point; a tap, a drag or the mouse picks the nearest point; the <output>
 * shows its date, rating, game and change. Without it the table gives the same values.
 * Written for this project; no library.
 */
(function () {
  "use strict";

  function setUp(figure) {
    var plot = figure.querySelector(".chart-plot");
    var svg = figure.querySelector("svg.chart");
    var focus = figure.querySelector("path.focus");
    var out = figure.querySelector("output.readout");
    var rows = Array.prototype.slice.call(figure.querySelectorAll("table.chart-data tbody tr"));
    if (!plot || !svg || !focus || !out || rows.length === 0) return;
    var points = rows.map(function (row) {
      var cells = row.cells;
      return {
        x: parseFloat(row.getAttribute("data-x")),
        y: parseFloat(row.getAttribute("data-y")),
        date: cells[0].textContent,
        rating: cells[1].textContent,
        game: cells[2].textContent,
        change: cells[3].textContent,
        kind: row.className
      };
    });
    var width = svg.viewBox.baseVal.width;
    var index = points.length - 1;

    function text(p) {
      var parts = [p.date, p.rating];
      if (p.kind === "start") parts.push("starting rating");
      else parts.push(p.game, p.change);
      return parts.join(" · ");
    }

    function show(i) {
      index = Math.max(0, Math.min(points.length - 1, i));
      var p = points[index];
      focus.setAttribute("d", "M" + p.x + " " + p.y + "h0");
      out.hidden = false;
      out.textContent = text(p);
      out.setAttribute("data-index", String(index));
      plot.setAttribute("aria-valuenow", String(index + 1));
      plot.setAttribute("aria-valuetext", text(p));
    }

    function nearest(clientX) {
      var box = svg.getBoundingClientRect();
      var x = ((clientX - box.left) / box.width) * width;
      var best = 0;
      for (var i = 1; i < points.length; i++) {
        if (Math.abs(points[i].x - x) < Math.abs(points[best].x - x)) best = i;
      }
      return best;
    }

    plot.tabIndex = 0;
    plot.setAttribute("role", "slider");
    plot.setAttribute("aria-label", (svg.getAttribute("aria-label") || "Rating chart") +
      ": arrow keys move through the points");
    plot.setAttribute("aria-valuemin", "1");
    plot.setAttribute("aria-valuemax", String(points.length));
    plot.setAttribute("aria-valuenow", String(index + 1));  // a slider's required value
    plot.setAttribute("aria-valuetext", text(points[index]));
    plot.classList.add("interactive");

    plot.addEventListener("focus", function () { show(index); });
    plot.addEventListener("keydown", function (event) {
      var moves = {
        ArrowLeft: -1, ArrowDown: -1, ArrowRight: 1, ArrowUp: 1,
        PageDown: -10, PageUp: 10
      };
      if (event.key in moves) show(index + moves[event.key]);
      else if (event.key === "Home") show(0);
      else if (event.key === "End") show(points.length - 1);
      else return;
      event.preventDefault();
    });
    plot.addEventListener("pointerdown", function (event) {
      show(nearest(event.clientX));
      if (event.pointerType !== "mouse" && plot.setPointerCapture) {
        plot.setPointerCapture(event.pointerId);
      }
    });
    plot.addEventListener("pointermove", function (event) {
      if (event.pointerType === "mouse" || event.buttons || event.pressure > 0) {
        show(nearest(event.clientX));
      }
    });
  }

  var figures = document.querySelectorAll("figure[data-chart]");
  for (var i = 0; i < figures.length; i++) setUp(figures[i]);
})();
