// A box that scrolls sideways by itself (a wide table, a wide formula) is
// reachable by keyboard and announced: while its content is wider than the
// box, it gets tabindex=0, role=region and a name, and a visible hint sits
// above it. Boxes are watched as the window resizes and as pages change (with
// instant navigation the page body is swapped without a reload).
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

  // A box is measured by the scan that starts watching it; the observer's first
  // report of it (every observed box gets one) repeats that measure and is skipped:
  // on a long page it was a second pass over every box, and a second forced layout.
  var fresh = new WeakSet();
  var sizes = new ResizeObserver(function (entries) {
    var changed = [];
    entries.forEach(function (entry) {
      if (fresh.has(entry.target)) {
        fresh.delete(entry.target);
      } else {
        changed.push(entry.target);
      }
    });
    if (changed.length) {
      markAll(changed);
    }
  });
  var watched = new WeakSet();
  var pending = false;

  function scan() {
    pending = false;
    var boxes = [];
    document.querySelectorAll(BOXES).forEach(function (box) {
      if (box.matches(".md-typeset__scrollwrap table")) {
        // The wrapper scrolls, not the table inside it; a table marked before
        // Material wrapped it gives up its mark and hint to the wrapper.
        if (box.hasAttribute("data-pe-scrolls")) {
          unmark(box);
        }
        return;
      }
      if (!watched.has(box)) {
        watched.add(box);
        fresh.add(box);
        sizes.observe(box);
      }
      boxes.push(box);
    });
    markAll(boxes);
  }

  function later() {
    if (!pending) {
      pending = true;
      requestAnimationFrame(scan);
    }
  }

  new MutationObserver(later).observe(document.body, { childList: true, subtree: true });
  window.addEventListener("resize", later);
  later();
  window.peScrollRegions = { scan: scan };
})();
