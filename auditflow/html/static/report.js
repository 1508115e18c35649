(function () {
  "use strict";
  var list = document.getElementById("case-list");

  // Sorting: click a column header; numbers compare as numbers, the rest as text.
  function cellValue(row, index) {
    var cell = row.children[index];
    return cell ? (cell.getAttribute("data-value") || cell.textContent.trim()) : "";
  }
  function compare(a, b) {
    var x = parseFloat(a), y = parseFloat(b);
    if (!isNaN(x) && !isNaN(y) && String(x) === a && String(y) === b) { return x - y; }
    return a.localeCompare(b);
  }
  if (list) {
    var heads = list.querySelectorAll("thead th[data-sort]");
    Array.prototype.forEach.call(heads, function (th, index) {
      th.addEventListener("click", function () {
        var descending = th.getAttribute("aria-sort") === "ascending";
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", descending ? "descending" : "ascending");
        var col = Array.prototype.indexOf.call(th.parentNode.children, th);
        var body = list.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var r = compare(cellValue(a, col), cellValue(b, col));
          return descending ? -r : r;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  }

  // Filtering: the text box and the selects; a case section is shown when its row is.
  var controls = document.querySelectorAll(".filters [data-filter]");
  var shown = document.getElementById("shown-count");
  function applyFilters() {
    if (!list) { return; }
    var want = {};
    Array.prototype.forEach.call(controls, function (c) { want[c.getAttribute("data-filter")] = c.value.toLowerCase(); });
    var count = 0;
    Array.prototype.forEach.call(list.tBodies[0].rows, function (row) {
      var ok = true;
      Object.keys(want).forEach(function (key) {
        var v = want[key];
        if (!v) { return; }
        if (key === "text") { ok = ok && row.getAttribute("data-text").indexOf(v) >= 0; }
        else if (key === "tag") { ok = ok && (" " + row.getAttribute("data-tags") + " ").indexOf(" " + v + " ") >= 0; }
        else { ok = ok && row.getAttribute("data-" + key) === v; }
      });
      row.classList.toggle("hidden", !ok);
      var section = document.getElementById(row.getAttribute("data-anchor"));
      if (section) { section.classList.toggle("hidden", !ok); }
      count += ok ? 1 : 0;
    });
    if (shown) { shown.textContent = String(count); }
  }
  Array.prototype.forEach.call(controls, function (c) {
    c.addEventListener("input", applyFilters);
    c.addEventListener("change", applyFilters);
  });

  // Open the case named in the address (#case-...), e.g. from a link in the list.
  // #only=ID shows that element alone (a case, a finding), open: a link to share, a page to print or capture.
  function openFromHash() {
    var id = decodeURIComponent(location.hash.replace(/^#/, ""));
    var only = id.indexOf("only=") === 0;
    if (only) { id = id.slice(5); }
    var el = id ? document.getElementById(id) : null;
    Array.prototype.forEach.call(document.querySelectorAll(".only-target, .only-path"), function (d) {
      d.classList.remove("only-target", "only-path");
    });
    document.body.classList.toggle("only", only && !!el);
    if (!el) { return; }
    var details = el.tagName === "DETAILS" ? el : el.querySelector(":scope > details");
    if (details) { details.open = true; }
    if (only) {
      el.classList.add("only-target");
      for (var p = el.parentElement; p && p !== document.body; p = p.parentElement) { p.classList.add("only-path"); }
    } else {
      el.scrollIntoView();
    }
  }
  window.addEventListener("hashchange", openFromHash);
  openFromHash();

  // Expand or collapse every visible case.
  Array.prototype.forEach.call(document.querySelectorAll("button[data-open]"), function (b) {
    b.addEventListener("click", function () {
      var open = b.getAttribute("data-open") === "1";
      Array.prototype.forEach.call(document.querySelectorAll("details.case:not(.hidden), article.finding > details"),
        function (d) { d.open = open; });
    });
  });

  // Printing: the visible cases print open (transcripts stay out), then return as they were.
  var reopened = [];
  window.addEventListener("beforeprint", function () {
    reopened = Array.prototype.filter.call(document.querySelectorAll("details.case:not(.hidden):not([open])"),
      function (d) { d.open = true; return true; });
  });
  window.addEventListener("afterprint", function () {
    reopened.forEach(function (d) { d.open = false; });
    reopened = [];
  });
}());
