(function () {
  "use strict";
  var status = "", area = "";
  var rows = Array.prototype.slice.call(document.querySelectorAll(".req"));
  var buttons = Array.prototype.slice.call(document.querySelectorAll("#filters button[data-status]"));
  var select = document.getElementById("area-filter");
  var shown = document.getElementById("shown");
  function apply() {
    var n = 0;
    rows.forEach(function (el) {
      var show = (status === "" || el.getAttribute("data-status") === status) &&
        (area === "" || el.getAttribute("data-area") === area);
      el.hidden = !show;
      if (show) { n++; }
    });
    buttons.forEach(function (b) {
      b.setAttribute("aria-pressed", b.getAttribute("data-status") === status ? "true" : "false");
    });
    shown.textContent = String(n);
  }
  buttons.forEach(function (b) {
    b.addEventListener("click", function () { status = b.getAttribute("data-status"); apply(); });
  });
  select.addEventListener("change", function () { area = select.value; apply(); });
  document.getElementById("filters").hidden = false;
  apply();
})();
