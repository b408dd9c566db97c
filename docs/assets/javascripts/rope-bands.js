// The "RoPE at long context" panel: pick a scaling rule and a factor, see which
// pairs keep their frequency, which slow down by the factor, and which blend.
// Plain JavaScript, float64 like pe.rope_frequencies; tests/test_rope_panel.py
// reads the numbers off the page in Chromium and checks them against pe.
//
// A panel is any element with data-pe-rope-panel (its own attribute: playground.js
// claims every data-pe-widget element).
(function () {
  "use strict";

  // Llama 3.1 8B's RoPE: head_dim 128, base 500000, trained on 8192 positions.
  const MODEL = { headDim: 128, base: 500000, trained: 8192 };
  const RULES = {
    default: "no scaling",
    linear: "linear (position interpolation)",
    dynamic: "dynamic NTK, at s × 8192 tokens",
    yarn: "yarn (beta_fast 32, beta_slow 1)",
    llama3: "llama3 (low, high freq factor 1, 4)",
  };
  const FACTOR = { min: 1, max: 64, value: 8 };
  const SHOWN_PAIRS = [0, 8, 16, 24, 28, 32, 36, 40, 48, 56, 63];

  // ------------------------------------------------------------------ the rules
  function plain(d, base) {
    const theta = new Float64Array(d / 2);
    for (let i = 0; i < d / 2; i++) theta[i] = Math.pow(base, -(2 * i) / d);
    return theta;
  }

  function scaled(rule, s, d, base, L) {
    const theta = plain(d, base);
    const out = new Float64Array(theta.length);
    let attention = 1;
    if (rule === "default" || s === 1 && rule !== "yarn") {
      out.set(theta);
    } else if (rule === "linear") {
      for (let i = 0; i < theta.length; i++) out[i] = theta[i] / s;
    } else if (rule === "dynamic") {
      const n = s * L; // the length served
      const grown = base * Math.pow((s * n) / L - (s - 1), d / (d - 2));
      for (let i = 0; i < theta.length; i++) out[i] = Math.pow(grown, -(2 * i) / d);
    } else if (rule === "yarn") {
      const index = (turns) => (d * Math.log(L / (turns * 2 * Math.PI))) / (2 * Math.log(base));
      let low = Math.max(Math.floor(index(32)), 0);
      let high = Math.min(Math.ceil(index(1)), d - 1);
      if (low === high) high += 0.001;
      for (let i = 0; i < theta.length; i++) {
        const ramp = Math.min(1, Math.max(0, (i - low) / (high - low)));
        const kept = 1 - ramp;
        out[i] = (theta[i] / s) * (1 - kept) + theta[i] * kept;
      }
      attention = s <= 1 ? 1 : 0.1 * Math.log(s) + 1;
    } else if (rule === "llama3") {
      const lowFactor = 1, highFactor = 4;
      for (let i = 0; i < theta.length; i++) {
        const wavelength = (2 * Math.PI) / theta[i];
        if (wavelength < L / highFactor) out[i] = theta[i];
        else if (wavelength > L / lowFactor) out[i] = theta[i] / s;
        else {
          const mu = (L / wavelength - lowFactor) / (highFactor - lowFactor);
          out[i] = ((1 - mu) * theta[i]) / s + mu * theta[i];
        }
      }
    }
    return { theta, scaled: out, attention };
  }

  // ------------------------------------------------------------------ helpers
  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (key === "text") node.textContent = value;
      else if (key === "class") node.className = value;
      else node.setAttribute(key, value);
    }
    for (const child of children || []) node.append(child);
    return node;
  }

  function significant(x) {
    return Number(x.toPrecision(6)).toString();
  }

  // A whole number with a comma between groups of three digits ("500,000"), as the
  // build writes numbers. Written out rather than toLocaleString("en-US"), whose
  // first call loads the locale's number formats: a quarter of a second of this
  // script's start on a 4x-throttled phone (a CPU profile of /beyond/rope-scaling/).
  function grouped(x) {
    return String(Math.round(x)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  }

  // ------------------------------------------------------------------ the panel
  // Its styles: docs/assets/stylesheets/rope-bands.css, linked by the page.
  function mount(root) {
    if (root.dataset.ropeMounted) return;
    const uid = "rope-bands-" + Math.random().toString(36).slice(2, 8);
    const ruleSelect = el("select", { id: uid + "-rule", "data-control": "rule" });
    for (const [value, label] of Object.entries(RULES)) {
      const option = el("option", { value, text: label });
      if (value === "yarn") option.selected = true;
      ruleSelect.append(option);
    }
    const factorInput = el("input", {
      id: uid + "-factor",
      type: "number",
      min: String(FACTOR.min),
      max: String(FACTOR.max),
      step: "any",
      value: String(FACTOR.value),
      "data-control": "factor",
      inputmode: "decimal",
    });
    const message = el("p", { class: "pe-rope-message", id: uid + "-message", "data-role": "factor-message", hidden: "" });
    factorInput.setAttribute("aria-describedby", message.id);
    const controls = el("div", { class: "pe-rope-controls" }, [
      el("span", { class: "pe-rope-field" }, [el("label", { for: uid + "-rule", text: "Rule" }), ruleSelect]),
      el("span", { class: "pe-rope-field" }, [
        el("label", { for: uid + "-factor", text: `Factor s (${FACTOR.min} to ${FACTOR.max})` }),
        factorInput,
      ]),
      message,
    ]);
    const summary = el("p", { class: "pe-rope-summary", "aria-live": "polite" });
    const note = el("p", {
      class: "pe-rope-note",
      id: uid + "-note",
      text:
        "Llama 3.1 8B's pairs (head_dim 128, base 500,000, trained on 8,192 positions): " +
        "wavelength before and after scaling, and the slow-down θ / θ′. Bars show the " +
        "wavelength after scaling on a log scale, the same for every rule and factor; " +
        "the mark is the trained context.",
    });
    const caption = el("caption", { id: uid + "-caption", text: "Pairs before and after scaling" });
    // Explicit roles: the narrow layout changes the table's display, and some
    // browsers drop a table's semantics with it.
    const body = el("tbody", { role: "rowgroup" });
    const table = el("table", { class: "pe-rope-table", role: "table", "aria-labelledby": uid + "-caption", "aria-describedby": note.id }, [
      caption,
      el("thead", { role: "rowgroup" }, [
        el("tr", { role: "row" }, [
          el("th", { scope: "col", role: "columnheader", text: "pair i" }),
          el("th", { scope: "col", role: "columnheader", text: "wavelength before" }),
          el("th", { scope: "col", role: "columnheader", text: "wavelength after" }),
          el("th", { scope: "col", role: "columnheader", text: "slow-down" }),
          el("th", { scope: "col", role: "columnheader", text: "after, against the trained context" }),
        ]),
      ]),
      body,
    ]);
    root.replaceChildren(
      el("div", { class: "pe-rope-panel" }, [controls, summary, note, el("div", { class: "pe-rope-scroll", tabindex: "0", role: "region", "aria-label": "Table of the pairs before and after scaling" }, [table])])
    );

    // The factor in use. A value out of range is marked while typed (the table
    // keeps the last good one); once committed (Enter, or leaving the box) it is
    // brought into range in the box itself, and the message says what happened.
    let current = FACTOR.value;

    function explain(text) {
      message.textContent = text;
      message.hidden = !text;
    }

    function refused(raw) {
      const n = raw.trim() === "" ? NaN : Number(raw);
      if (!Number.isFinite(n)) return `s must be a number from ${FACTOR.min} to ${FACTOR.max}`;
      if (n < FACTOR.min) return `s = ${raw.trim()} is below ${FACTOR.min}, the smallest factor`;
      if (n > FACTOR.max) return `s = ${raw.trim()} is above ${FACTOR.max}, the largest factor here`;
      return "";
    }

    function typed() {
      const why = refused(factorInput.value);
      if (why) {
        factorInput.setAttribute("aria-invalid", "true");
        explain(`${why}; the table still shows s = ${current}.`);
        return;
      }
      factorInput.removeAttribute("aria-invalid");
      explain("");
      current = Number(factorInput.value);
      draw();
    }

    function committed() {
      const raw = factorInput.value;
      const why = refused(raw);
      if (why) {
        const n = raw.trim() === "" ? NaN : Number(raw);
        current = Number.isFinite(n) ? Math.min(FACTOR.max, Math.max(FACTOR.min, n)) : current;
        factorInput.value = String(current);
        explain(`${why}: set to ${current}.`);
      } else {
        current = Number(raw);
        explain("");
      }
      factorInput.removeAttribute("aria-invalid");
      draw();
    }

    // Bars share one log scale for every rule and factor: from one turn per
    // 2π positions to the longest wavelength any rule here reaches (the
    // slowest pair at the largest factor).
    const logMin = Math.log(2 * Math.PI);
    let longest = MODEL.trained;
    for (const rule of Object.keys(RULES)) {
      const slowest = scaled(rule, FACTOR.max, MODEL.headDim, MODEL.base, MODEL.trained).scaled;
      for (const theta of slowest) longest = Math.max(longest, (2 * Math.PI) / theta);
    }
    const logMax = Math.log(longest);
    const position = (x) => Math.min(100, Math.max(0, (100 * (Math.log(x) - logMin)) / (logMax - logMin)));

    function draw() {
      const rule = ruleSelect.value;
      const s = current;
      const d = MODEL.headDim, L = MODEL.trained;
      const result = scaled(rule, s, d, MODEL.base, L);
      let kept = 0, divided = 0;
      for (let i = 0; i < result.theta.length; i++) {
        const ratio = result.theta[i] / result.scaled[i];
        if (Math.abs(ratio - 1) <= 1e-9) kept++;
        else if (Math.abs(ratio - s) <= 1e-9 * s) divided++;
      }
      const between = result.theta.length - kept - divided;
      summary.replaceChildren(
        "Factor s = ", el("strong", { "data-field": "factor", text: String(s) }), ". Kept: ", el("strong", { "data-field": "kept", text: String(kept) }),
        " pairs; slowed by the full factor: ", el("strong", { "data-field": "divided", text: String(divided) }),
        "; in between: ", el("strong", { "data-field": "between", text: String(between) }),
        ". Attention factor on cos and sin: ",
        el("strong", { "data-field": "attention", text: result.attention.toFixed(6) }),
        "."
      );
      body.replaceChildren(
        ...SHOWN_PAIRS.map((i) => {
          const before = (2 * Math.PI) / result.theta[i];
          const after = (2 * Math.PI) / result.scaled[i];
          const bar = el("div", { class: "pe-rope-bar", "aria-hidden": "true" }, [
            el("span", { class: "pe-rope-fill", style: `width: ${position(after).toFixed(2)}%` }),
            el("span", { class: "pe-rope-mark", style: `left: ${position(L).toFixed(2)}%` }),
          ]);
          return el("tr", { role: "row", "data-pair": String(i) }, [
            el("th", { scope: "row", role: "rowheader", text: String(i) }),
            el("td", { role: "cell", "data-field": "before", text: grouped(before) }),
            el("td", { role: "cell", "data-field": "after", text: grouped(after) }),
            el("td", { role: "cell", "data-field": "slowdown", text: significant(result.theta[i] / result.scaled[i]) }),
            el("td", { role: "cell" }, [bar, el("span", { class: "pe-visually-hidden", text: after > L ? "longer than the trained context" : "within the trained context" })]),
          ]);
        })
      );
    }

    ruleSelect.addEventListener("change", draw);
    factorInput.addEventListener("input", typed);
    factorInput.addEventListener("change", committed);
    draw();
    root.dataset.ropeMounted = "true";
  }

  function mountAll() {
    document.querySelectorAll("[data-pe-rope-panel]").forEach(mount);
  }

  window.peRopeBands = { scaled, mountAll }; // for the console, and for the tests
  if (typeof document$ !== "undefined") document$.subscribe(mountAll);
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mountAll);
  else mountAll();
})();
