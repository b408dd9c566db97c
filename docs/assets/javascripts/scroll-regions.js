// A box that scrolls sideways by itself (a wide table, a wide formula) is
// reachable by keyboard and announced: while its content is wider than the
// box, it gets tabindex=0, role=region and a name, and a visible hint sits
// above it. Boxes are watched as the window resizes and as pages change (with
// instant navigation the page body is swapped without a reload).
//
// Boxes are measured only where the browser has just laid the page out: in a
// ResizeObserver's report, which comes after layout and before paint. Asking
// a box for its widths anywhere else makes the browser lay the whole page out
// on the spot (a forced reflow: a quarter of a second on a long page on a
// throttled phone). A box to measure again is observed afresh, and the
// observer reports it after the next layout.
//
// The hint above a box is written by the build, hidden, before every table
// and display formula (sitegen/hooks.py, `scroll_hints`): here it is only shown
// or hidden. Inserting an element into a long page made the browser restyle
// and lay out everything after it (0.3 to 0.8 s on a 4x-throttled phone on
// RoPE at long context, for one hint); showing one that is there restyles
// only it. A box the build did not see (a widget's table) gets a new hint.
// Only a change that adds a box starts a new scan: the theme adds buttons
// and tooltips all over the page as it starts.
//
// A code block is the theme's box: it gives one that scrolls tabindex=0, and
// nothing else, but only once the block comes into view (content.lazy in
// mkdocs.yml: mounting every block as the page started laid the page out once
// per block). A block further down is made focusable here the same way, so a
// keyboard reaches it before it has been seen; the theme, mounting it later,
// comes to the same answer.
(function () {
  "use strict";
  var CODE = ".md-typeset pre > code";
  var BOXES = [
    CODE,
    ".md-typeset .md-typeset__scrollwrap",
    // A table the theme has yet to wrap (the build wraps each it sees, and gives it a class).
    ".md-typeset table:not([class])",
    ".md-typeset div.arithmatex",
    ".md-typeset [data-pe-widget] table",
  ].join(", ");
  var HINT = "Scroll sideways to see all of it →";

  // Each region's name is its own on the page (axe's landmark-unique): the
  // box's number among the page's formulas, or among its tables.
  function label(box) {
    var formula = box.matches(".arithmatex");
    var kin = document.querySelectorAll(formula ? "div.arithmatex" : "table");
    var table = formula ? box : box.matches("table") ? box : box.querySelector("table");
    var number = Array.prototype.indexOf.call(kin, table) + 1;
    if (formula) {
      return "Formula " + number + ", scrolls sideways";
    }
    var head = box.querySelector("th");
    var first = head ? head.textContent.trim().slice(0, 40) : "";
    return "Table " + number + (first ? " (" + first + ", …)" : "") + ", scrolls sideways";
  }

  // Any overflow makes the box a region that scrolls, focusable from the
  // keyboard (axe's scrollable-region-focusable counts a single pixel); the
  // hint is shown only past a pixel of rounding. Every box is measured first
  // and changed after: measuring one box after changing another would make
  // the browser lay the whole page out again for each box.
  function markAll(boxes) {
    var overs = boxes.map(function (box) {
      return box.scrollWidth - box.clientWidth;
    });
    boxes.forEach(function (box, i) {
      mark(box, overs[i]);
    });
  }

  function mark(box, over) {
    if (box.matches(CODE)) {
      if (over > 0 && box.getAttribute("tabindex") !== "0") {
        box.setAttribute("tabindex", "0");
      } else if (over <= 0 && box.hasAttribute("tabindex")) {
        box.removeAttribute("tabindex");
      }
      return;
    }
    var marked = box.hasAttribute("data-pe-scrolls");
    if (over > 0 && !marked) {
      box.setAttribute("data-pe-scrolls", "");
      box.setAttribute("tabindex", "0");
      box.setAttribute("role", "region");
      box.setAttribute("aria-label", label(box));
    } else if (over <= 0 && marked) {
      unmark(box);
      return;
    }
    var hint = hintOf(box);
    var shown = over > 1 && !box.matches("span");
    if (shown && !hint) {
      hint = document.createElement("p");
      hint.className = "pe-scroll-hint";
      hint.setAttribute("aria-hidden", "true");
      hint.textContent = HINT;
      box.parentNode.insertBefore(hint, box);
    } else if (hint && hint.hidden === shown) {
      hint.hidden = !shown;
    }
  }

  // The box's hint: the element just before it (the theme's wrapper of a
  // table takes the table's place, after the hint the build wrote).
  function hintOf(box) {
    var before = box.previousElementSibling;
    return before && before.classList.contains("pe-scroll-hint") ? before : null;
  }

  function unmark(box) {
    ["data-pe-scrolls", "tabindex", "role", "aria-label"].forEach(function (name) {
      box.removeAttribute(name);
    });
    var hint = hintOf(box);
    if (hint) {
      hint.hidden = true;
    }
  }

  var sizes = new ResizeObserver(function (entries) {
    markAll(
      entries.map(function (entry) {
        return entry.target;
      })
    );
  });
  var pending = false;

  // Every box, new or not: its content may have changed without its size.
  function scan() {
    pending = false;
    document.querySelectorAll(BOXES).forEach(function (box) {
      if (box.matches(".md-typeset__scrollwrap table")) {
        // The wrapper scrolls, not the table inside it; a table marked before
        // Material wrapped it gives up its mark and hint to the wrapper.
        sizes.unobserve(box);
        if (box.hasAttribute("data-pe-scrolls")) {
          unmark(box);
        }
        return;
      }
      sizes.unobserve(box);
      sizes.observe(box);
    });
  }

  // A change that adds a box (a new page's content, the theme's wrapper of a
  // table, a widget's table); a removed box is no longer laid out, and its
  // observer reports nothing.
  function addsBox(record) {
    return Array.prototype.some.call(record.addedNodes, function (node) {
      return node.nodeType === 1 && (node.matches(BOXES) || node.querySelector(BOXES) !== null);
    });
  }

  function later() {
    if (!pending) {
      pending = true;
      requestAnimationFrame(scan);
    }
  }

  new MutationObserver(function (records) {
    if (records.some(addsBox)) {
      later();
    }
  }).observe(document.body, { childList: true, subtree: true });
  window.addEventListener("resize", later);
  later();
  window.peScrollRegions = { scan: scan };
})();
