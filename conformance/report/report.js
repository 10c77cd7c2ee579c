(function () {
  "use strict";
  var status = "", area = "";
  var rows = Array.prototype.slice.call(document.querySelectorAll(".req"));
  var buttons = Array.prototype.slice.call(document.querySelectorAll("#filters button[data-status]"));
  var columns = Array.prototype.slice.call(document.querySelectorAll("#chart button[data-area]"));
  var select = document.getElementById("area-filter");
  var shown = document.getElementById("shown");
  // The requirements not selected stay folded unless asked for: by their
  // summary, or by the "not selected" filter (which unfolds them while it
  // is on).
  var group = document.getElementById("not-selected");
  var openedByFilter = false;
  function setStatus(s) {
    status = s;
    if (group) {
      if (status === "not selected" && !group.open) {
        group.open = true;
        openedByFilter = true;
      } else if (status !== "not selected" && openedByFilter) {
        group.open = false;
        openedByFilter = false;
      }
    }
    apply();
  }
  function apply() {
    var n = 0;
    rows.forEach(function (el) {
      var show = (status === "" || el.getAttribute("data-status") === status) &&
        (area === "" || el.getAttribute("data-area") === area);
      el.hidden = !show;
      if (show && (!group || !group.contains(el) || group.open)) { n++; }
    });
    buttons.forEach(function (b) {
      b.setAttribute("aria-pressed", b.getAttribute("data-status") === status ? "true" : "false");
    });
    columns.forEach(function (c) {
      c.setAttribute("aria-pressed", c.getAttribute("data-area") === area ? "true" : "false");
    });
    shown.textContent = String(n);
  }
  buttons.forEach(function (b) {
    b.addEventListener("click", function () { setStatus(b.getAttribute("data-status")); });
  });
  columns.forEach(function (c) {
    c.addEventListener("click", function () {
      area = c.getAttribute("data-area") === area ? "" : c.getAttribute("data-area");
      select.value = area;
      apply();
    });
  });
  select.addEventListener("change", function () { area = select.value; apply(); });
  if (group) {
    group.addEventListener("toggle", function () {
      if (!group.open) { openedByFilter = false; }
      apply();
    });
  }
  document.getElementById("filters").hidden = false;
  apply();
})();
