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
(function () {
  "use strict";
  var BOXES = [
    ".md-typeset .md-typeset__scrollwrap",
    ".md-typeset table:not([class])",
    ".md-typeset div.arithmatex",
    ".md-typeset [data-pe-widget] table",
  ].join(", ");
  var HINT = "Scroll sideways to see all of it →";

  function label(box) {
    if (box.matches(".arithmatex")) {
      return "Formula, scrolls sideways";
    }
    var head = box.querySelector("th");
    var first = head ? head.textContent.trim().slice(0, 40) : "";
    return "Table" + (first ? " (" + first + ", …)" : "") + ", scrolls sideways";
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
    var hint = hints.get(box);
    if (over > 1 && !hint && !box.matches("span")) {
      hint = document.createElement("p");
      hint.className = "pe-scroll-hint";
      hint.setAttribute("aria-hidden", "true");
      hint.textContent = HINT;
      box.parentNode.insertBefore(hint, box);
      hints.set(box, hint);
    } else if (over <= 1 && hint) {
      hint.remove();
      hints.delete(box);
    }
  }

  var hints = new WeakMap();

  function unmark(box) {
    ["data-pe-scrolls", "tabindex", "role", "aria-label"].forEach(function (name) {
      box.removeAttribute(name);
    });
    var hint = hints.get(box);
    if (hint) {
      hint.remove();
      hints.delete(box);
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

  // A change of the page's boxes, not of the hints this script adds.
  function ours(record) {
    var nodes = Array.prototype.slice.call(record.addedNodes).concat(
      Array.prototype.slice.call(record.removedNodes)
    );
    return nodes.every(function (node) {
      return node.nodeType === 1 && node.classList.contains("pe-scroll-hint");
    });
  }

  function later() {
    if (!pending) {
      pending = true;
      requestAnimationFrame(scan);
    }
  }

  new MutationObserver(function (records) {
    if (!records.every(ours)) {
      later();
    }
  }).observe(document.body, { childList: true, subtree: true });
  window.addEventListener("resize", later);
  later();
  window.peScrollRegions = { scan: scan };
})();
