// The interactive playground and the small widgets on the formula and rotation
// pages. Plain JavaScript, no dependencies: every number is computed here with
// the formula that pe uses (float64, as JavaScript numbers are), and
// tests/test_playground.py checks what the page shows against pe itself.
//
// A widget is any element with data-pe-widget="playground" | "table" | "rotation".
(function () {
  "use strict";

  // ------------------------------------------------------------------ the math
  // omega_i = base^(-2i/d); PE(p, 2i) = sin(p omega_i), PE(p, 2i+1) = cos(p omega_i)
  const PE = {
    frequency(pair, d, base) {
      return Math.pow(base, -(2 * pair) / d);
    },
    angle(p, column, d, base) {
      return p * PE.frequency(Math.floor(column / 2), d, base);
    },
    value(p, column, d, base) {
      const a = PE.angle(p, column, d, base);
      return column % 2 === 0 ? Math.sin(a) : Math.cos(a);
    },
    row(p, d, base) {
      const out = new Float64Array(d);
      for (let j = 0; j < d; j++) out[j] = PE.value(p, j, d, base);
      return out;
    },
    dot(a, b) {
      let s = 0;
      for (let j = 0; j < a.length; j++) s += a[j] * b[j];
      return s;
    },
  };

  // ------------------------------------------------------------------ helpers
  const LIMITS = {
    d: { min: 2, max: 512, step: 2, value: 64 },
    base: { min: 2, max: 1000000, value: 10000 },
    length: { min: 1, max: 256, step: 1, value: 50 },
  };
  const SENTENCE = ["The", "cat", "sat", "on", "the", "mat", "because", "it", "was", "tired"];

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

  function fixed(x, digits) {
    const s = x.toFixed(digits);
    return /^-0\.?0*$/.test(s) ? s.slice(1) : s; // no "-0.000000"
  }

  function clampInt(value, limit) {
    const n = Math.round(Number(value));
    if (!Number.isFinite(n)) return limit.value;
    let v = Math.min(limit.max, Math.max(limit.min, n));
    if (limit.step === 2 && v % 2) v -= 1;
    return v;
  }

  function clampBase(value) {
    const n = Number(value);
    if (!Number.isFinite(n)) return LIMITS.base.value;
    return Math.min(LIMITS.base.max, Math.max(LIMITS.base.min, n));
  }

  // Colours follow the site's palette: read Material's CSS variables each draw.
  function theme(node) {
    const style = getComputedStyle(node);
    const dark = document.body.getAttribute("data-md-color-scheme") === "slate";
    return {
      dark,
      fg: style.getPropertyValue("--md-default-fg-color").trim() || (dark ? "#e6edf3" : "#1f2328"),
      muted: style.getPropertyValue("--md-default-fg-color--light").trim() || "#888",
      grid: style.getPropertyValue("--md-default-fg-color--lightest").trim() || "#ccc",
      accent: style.getPropertyValue("--md-accent-fg-color").trim() || "#ff6e40",
      lines: dark
        ? ["#8c9eff", "#ffab40", "#69f0ae", "#ea80fc"]
        : ["#3f51b5", "#e65100", "#2e7d32", "#8e24aa"],
    };
  }

  // A diverging map from -1 (blue) through 0 (paper) to 1 (red).
  function diverging(v, dark) {
    const t = Math.max(-1, Math.min(1, v));
    const mid = dark ? [40, 42, 54] : [247, 247, 247];
    const end = t < 0 ? [33, 102, 172] : [178, 24, 43];
    const a = Math.abs(t);
    return mid.map((m, i) => Math.round(m + (end[i] - m) * a));
  }

  // A number input and a range slider kept in step.
  function control(label, name, limit, onChange, log) {
    const id = `pe-${name}-${Math.random().toString(36).slice(2, 8)}`;
    const number = el("input", {
      type: "number", id, min: limit.min, max: limit.max, step: limit.step || "any",
      value: limit.value, "data-control": name, "aria-label": label,
    });
    const range = el("input", {
      type: "range", "aria-label": `${label} slider`, "data-slider": name,
      min: log ? Math.log10(limit.min) : limit.min,
      max: log ? Math.log10(limit.max) : limit.max,
      step: log ? 0.01 : limit.step || 1,
      value: log ? Math.log10(limit.value) : limit.value,
    });
    const set = (value) => {
      number.value = String(value);
      range.value = String(log ? Math.log10(value) : value);
      onChange(value);
    };
    number.addEventListener("change", () => set(name === "base" ? clampBase(number.value) : clampInt(number.value, limit)));
    range.addEventListener("input", () => {
      const raw = log ? Math.pow(10, Number(range.value)) : Number(range.value);
      const value = name === "base" ? Math.round(clampBase(raw)) : clampInt(raw, limit);
      number.value = String(value);
      onChange(value);
    });
    return el("div", { class: "pe-control" }, [el("label", { for: id, text: label }), number, range]);
  }

  function canvasFor(container, height) {
    const canvas = el("canvas", { height: String(height) });
    container.append(canvas);
    return canvas;
  }

  function sizeCanvas(canvas, cssHeight) {
    const ratio = window.devicePixelRatio || 1;
    const width = Math.max(120, canvas.parentElement.clientWidth);
    canvas.style.width = `${width}px`;
    canvas.style.height = `${cssHeight}px`;
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(cssHeight * ratio);
    const ctx = canvas.getContext("2d");
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    return { ctx, width, height: cssHeight };
  }

  // ------------------------------------------------------------------ the heatmap
  // Rows are positions, columns dimensions; hover or arrow keys pick a cell.
  function heatmap(root, state, onPick) {
    const box = el("div", { class: "pe-canvas-box" });
    const canvas = canvasFor(box, 240);
    canvas.setAttribute("tabindex", "0");
    canvas.setAttribute("role", "img");
    canvas.setAttribute("data-role", "heatmap");
    canvas.setAttribute("aria-label", "Encoding table: rows are positions, columns are dimensions. Use the arrow keys to read a cell.");
    const readout = el("p", { class: "pe-readout", "data-role": "cell-readout", "aria-live": "polite" });
    root.append(box, readout);
    const cursor = { p: 0, j: 0 };
    const HEIGHT = 240;

    function describe() {
      const { d, base } = state;
      const pair = Math.floor(cursor.j / 2);
      const kind = cursor.j % 2 === 0 ? "sin" : "cos";
      const angle = PE.angle(cursor.p, cursor.j, d, base);
      const value = PE.value(cursor.p, cursor.j, d, base);
      readout.replaceChildren(
        "position ", el("b", { "data-field": "position", text: String(cursor.p) }),
        " · dimension ", el("b", { "data-field": "dimension", text: String(cursor.j) }),
        ` (${kind}, pair ${pair}) · angle `, el("b", { "data-field": "angle", text: fixed(angle, 6) }),
        " rad · value ", el("b", { "data-field": "value", text: fixed(value, 6) }),
      );
      if (onPick) onPick(cursor.p, cursor.j);
    }

    function draw() {
      const { d, base, length } = state;
      const { ctx, width, height } = sizeCanvas(canvas, HEIGHT);
      const colours = theme(root);
      const image = new ImageData(d, length);
      for (let p = 0; p < length; p++) {
        for (let j = 0; j < d; j++) {
          const [r, g, b] = diverging(PE.value(p, j, d, base), colours.dark);
          const k = 4 * (p * d + j);
          image.data[k] = r; image.data[k + 1] = g; image.data[k + 2] = b; image.data[k + 3] = 255;
        }
      }
      const scratch = document.createElement("canvas");
      scratch.width = d; scratch.height = length;
      scratch.getContext("2d").putImageData(image, 0, 0);
      ctx.imageSmoothingEnabled = false;
      ctx.clearRect(0, 0, width, height);
      ctx.drawImage(scratch, 0, 0, width, height);
      cursor.p = Math.min(cursor.p, length - 1);
      cursor.j = Math.min(cursor.j, d - 1);
      const w = width / d, h = height / length;
      ctx.strokeStyle = colours.accent;
      ctx.lineWidth = 2;
      ctx.strokeRect(cursor.j * w + 1, cursor.p * h + 1, Math.max(w - 2, 2), Math.max(h - 2, 2));
      describe();
    }

    function pick(event) {
      const rect = canvas.getBoundingClientRect();
      const j = Math.floor(((event.clientX - rect.left) / rect.width) * state.d);
      const p = Math.floor(((event.clientY - rect.top) / rect.height) * state.length);
      if (j < 0 || p < 0 || j >= state.d || p >= state.length) return;
      if (j !== cursor.j || p !== cursor.p) { cursor.j = j; cursor.p = p; draw(); }
    }
    canvas.addEventListener("mousemove", pick);
    canvas.addEventListener("click", pick);
    canvas.addEventListener("keydown", (event) => {
      const moves = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] };
      if (event.key === "Home") { cursor.p = 0; cursor.j = 0; }
      else if (event.key === "End") { cursor.p = state.length - 1; cursor.j = state.d - 1; }
      else if (moves[event.key]) {
        const [dp, dj] = moves[event.key];
        cursor.p = Math.min(state.length - 1, Math.max(0, cursor.p + dp));
        cursor.j = Math.min(state.d - 1, Math.max(0, cursor.j + dj));
      } else return;
      event.preventDefault();
      draw();
    });
    return { draw };
  }

  // ------------------------------------------------------------------ the waves
  function waves(root, state) {
    const dims = el("input", {
      type: "text", value: "0, 1, 8, 20", "data-control": "dims",
      "aria-label": "Dimensions to plot, separated by commas",
    });
    const label = el("label", { text: "dimensions " }, [dims]);
    const box = el("div", { class: "pe-canvas-box" });
    const canvas = canvasFor(box, 200);
    canvas.setAttribute("role", "img");
    canvas.setAttribute("data-role", "waves");
    const legend = el("p", { class: "pe-legend", "data-role": "waves-legend" });
    root.append(el("div", { class: "pe-controls" }, [label]), box, legend);

    function chosen() {
      return dims.value.split(/[\s,]+/).filter(Boolean).map(Number)
        .filter((j) => Number.isInteger(j) && j >= 0 && j < state.d).slice(0, 4);
    }

    function draw() {
      const { ctx, width, height } = sizeCanvas(canvas, 200);
      const colours = theme(root);
      const pad = { left: 30, right: 8, top: 8, bottom: 22 };
      const x = (p) => pad.left + (p / Math.max(1, state.length - 1)) * (width - pad.left - pad.right);
      const y = (v) => pad.top + ((1 - v) / 2) * (height - pad.top - pad.bottom);
      ctx.clearRect(0, 0, width, height);
      ctx.strokeStyle = colours.grid; ctx.lineWidth = 1;
      ctx.fillStyle = colours.muted; ctx.font = "11px sans-serif";
      for (const v of [-1, 0, 1]) {
        ctx.beginPath(); ctx.moveTo(pad.left, y(v)); ctx.lineTo(width - pad.right, y(v)); ctx.stroke();
        ctx.fillText(String(v), 6, y(v) + 4);
      }
      ctx.fillText("position", width / 2 - 20, height - 5);
      const picked = chosen();
      legend.replaceChildren();
      picked.forEach((j, n) => {
        ctx.strokeStyle = colours.lines[n % colours.lines.length]; ctx.lineWidth = 1.6;
        ctx.beginPath();
        const samples = Math.max(2, state.length);
        for (let s = 0; s < samples; s++) {
          const v = PE.value(s, j, state.d, state.base);
          if (s === 0) ctx.moveTo(x(s), y(v)); else ctx.lineTo(x(s), y(v));
        }
        ctx.stroke();
        const wavelength = (2 * Math.PI) / PE.frequency(Math.floor(j / 2), state.d, state.base);
        legend.append(el("span", { style: `color:${colours.lines[n % colours.lines.length]}`,
          text: `dim ${j} (${j % 2 ? "cos" : "sin"}, wavelength ${wavelength.toFixed(1)})  ` }));
      });
    }
    dims.addEventListener("change", draw);
    return { draw };
  }

  // ------------------------------------------------------------------ two tokens
  function twoTokens(root, state) {
    const picks = [0, 5];
    const pairInput = el("input", { type: "number", min: "0", value: "0", "data-control": "pair", "aria-label": "Pair index i" });
    const buttons = SENTENCE.map((word, p) => {
      const button = el("button", { type: "button", class: "pe-token", "data-position": String(p),
        "aria-pressed": "false", text: `${word}`, title: `position ${p}` });
      button.addEventListener("click", () => {
        picks.shift(); picks.push(p);
        update();
      });
      return button;
    });
    const results = el("div", { class: "pe-results", "data-role": "pair-results", "aria-live": "polite" });
    root.append(
      el("p", { class: "pe-hint", text: "Pick two tokens (the last two clicked are compared):" }),
      el("div", { class: "pe-tokens", role: "group", "aria-label": "Tokens of the example sentence" }, buttons),
      el("div", { class: "pe-controls" }, [el("label", { text: "pair i " }, [pairInput])]),
      results,
    );

    function update() {
      const { d, base } = state;
      const [a, b] = picks;
      buttons.forEach((button, p) => button.setAttribute("aria-pressed", String(picks.includes(p))));
      const A = PE.row(a, d, base), B = PE.row(b, d, base);
      const dot = PE.dot(A, B);
      const cosine = dot / Math.sqrt(PE.dot(A, A) * PE.dot(B, B));
      let squared = 0;
      for (let j = 0; j < d; j++) squared += (A[j] - B[j]) ** 2;
      const pair = Math.min(Math.max(0, Math.round(Number(pairInput.value) || 0)), d / 2 - 1);
      pairInput.max = String(d / 2 - 1);
      pairInput.value = String(pair);
      const k = b - a;
      const turn = k * PE.frequency(pair, d, base);
      const c = Math.cos(turn), s = Math.sin(turn);
      const start = [A[2 * pair], A[2 * pair + 1]];
      const rotated = [c * start[0] + s * start[1], -s * start[0] + c * start[1]];
      const field = (name, text) => el("b", { "data-field": name, text });
      results.replaceChildren(
        el("p", {}, ["positions ", field("a", String(a)), " (", SENTENCE[a], ") and ",
          field("b", String(b)), " (", SENTENCE[b], "), offset k = ", field("offset", String(k))]),
        el("p", {}, ["dot product ", field("dot", fixed(dot, 6)), " · cosine similarity ",
          field("cosine", fixed(cosine, 6)), " · distance ", field("distance", fixed(Math.sqrt(squared), 6))]),
        el("p", {}, [`rotation of pair ${pair} by k·ω = `, field("turn", fixed(turn, 6)), " rad:"]),
        el("div", { class: "pe-matrix", "data-role": "rotation" }, [
          el("span", { text: "[" }),
          el("span", { class: "pe-cells" }, [
            field("m00", fixed(c, 6)), field("m01", fixed(s, 6)),
            field("m10", fixed(-s, 6)), field("m11", fixed(c, 6)),
          ]),
          el("span", { text: "] ×" }),
          el("span", { class: "pe-vector" }, [field("start0", fixed(start[0], 6)), field("start1", fixed(start[1], 6))]),
          el("span", { text: "=" }),
          el("span", { class: "pe-vector" }, [field("rotated0", fixed(rotated[0], 6)), field("rotated1", fixed(rotated[1], 6))]),
        ]),
        el("p", {}, [`and the pair of position ${b} is (`, field("target0", fixed(B[2 * pair], 6)), ", ",
          field("target1", fixed(B[2 * pair + 1], 6)), ") — the same, as the rotation property says."]),
      );
    }
    pairInput.addEventListener("change", update);
    return { draw: update, pick(a, b) { picks[0] = a; picks[1] = b; update(); } };
  }

  // ------------------------------------------------------------------ the pipeline
  // A deterministic pseudo-random token embedding: normal entries, std d^-1/2,
  // then scaled by sqrt(d) as the model does.
  function embedding(word, d) {
    let seed = 2166136261;
    for (const ch of word.toLowerCase()) seed = Math.imul(seed ^ ch.charCodeAt(0), 16777619) >>> 0;
    const next = () => {
      seed = (seed + 0x6d2b79f5) >>> 0;
      let t = seed;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const out = new Float64Array(d);
    for (let j = 0; j < d; j++) {
      const u = Math.max(next(), 1e-12), v = next();
      out[j] = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v) / Math.sqrt(d);
    }
    return out;
  }

  function pipeline(root, state) {
    const select = el("select", { "data-control": "token", "aria-label": "Token to follow" },
      SENTENCE.map((word, p) => el("option", { value: String(p), text: `${p}: ${word}` })));
    const output = el("div", { "data-role": "pipeline", "aria-live": "polite" });
    root.append(el("div", { class: "pe-controls" }, [el("label", { text: "token " }, [select])]), output);

    function update() {
      const { d, base } = state;
      const p = Number(select.value);
      const scale = Math.sqrt(d);
      const raw = embedding(SENTENCE[p], d);
      const scaled = raw.map((v) => v * scale);
      const code = PE.row(p, d, base);
      const shown = Math.min(d, 8);
      const rows = [];
      for (let j = 0; j < shown; j++) {
        rows.push(el("tr", { "data-dimension": String(j) }, [
          el("td", { text: String(j) }),
          el("td", { "data-field": "embedding", text: fixed(scaled[j], 6) }),
          el("td", { "data-field": "encoding", text: fixed(code[j], 6) }),
          el("td", { "data-field": "sum", text: fixed(scaled[j] + code[j], 6) }),
        ]));
      }
      const norm = (x) => Math.sqrt(PE.dot(x, x));
      const sum = scaled.map((v, j) => v + code[j]);
      output.replaceChildren(
        el("p", {}, [`"${SENTENCE[p]}" at position ${p}: its embedding times √${d} = `, el("b", { text: fixed(scale, 4) }),
          ", plus its encoding (first ", String(shown), " of ", String(d), " dimensions):"]),
        el("table", { class: "pe-table" }, [
          el("thead", {}, [el("tr", {}, ["dimension", "embedding × √d", "encoding", "sum"].map((h) => el("th", { text: h })))]),
          el("tbody", {}, rows),
        ]),
        el("p", {}, ["norms: embedding ", el("b", { "data-field": "embedding-norm", text: fixed(norm(scaled), 4) }),
          " · encoding ", el("b", { "data-field": "encoding-norm", text: fixed(norm(code), 4) }),
          ` (√(d/2) = ${fixed(Math.sqrt(d / 2), 4)}) · sum `, el("b", { "data-field": "sum-norm", text: fixed(norm(sum), 4) })]),
      );
    }
    select.addEventListener("change", update);
    return { draw: update };
  }

  // ------------------------------------------------------------------ rotation widget
  function rotationWidget(root, state) {
    const p = { value: 3 }, k = { value: 5 }, pair = { value: 1 };
    const results = el("div", { "data-role": "rotation-results", "aria-live": "polite" });
    const redraw = () => update();
    root.append(el("div", { class: "pe-controls" }, [
      control("position p", "p", { min: 0, max: 1000, step: 1, value: 3 }, (v) => { p.value = v; redraw(); }),
      control("offset k", "k", { min: -200, max: 200, step: 1, value: 5 }, (v) => { k.value = v; redraw(); }),
      control("pair i", "pair", { min: 0, max: 7, step: 1, value: 1 }, (v) => { pair.value = v; redraw(); }),
    ]), results);

    function update() {
      const { d, base } = state;
      const i = Math.min(pair.value, d / 2 - 1);
      const turn = k.value * PE.frequency(i, d, base);
      const c = Math.cos(turn), s = Math.sin(turn);
      const start = [PE.value(p.value, 2 * i, d, base), PE.value(p.value, 2 * i + 1, d, base)];
      const rotated = [c * start[0] + s * start[1], -s * start[0] + c * start[1]];
      const target = [PE.value(p.value + k.value, 2 * i, d, base), PE.value(p.value + k.value, 2 * i + 1, d, base)];
      const field = (name, text) => el("b", { "data-field": name, text });
      results.replaceChildren(
        el("p", {}, [`d = ${d}: pair ${i} turns by k·ω = `, field("turn", fixed(turn, 6)), " rad"]),
        el("div", { class: "pe-matrix" }, [
          el("span", { text: "[" }),
          el("span", { class: "pe-cells" }, [field("m00", fixed(c, 6)), field("m01", fixed(s, 6)), field("m10", fixed(-s, 6)), field("m11", fixed(c, 6))]),
          el("span", { text: "] ×" }),
          el("span", { class: "pe-vector" }, [field("start0", fixed(start[0], 6)), field("start1", fixed(start[1], 6))]),
          el("span", { text: "=" }),
          el("span", { class: "pe-vector" }, [field("rotated0", fixed(rotated[0], 6)), field("rotated1", fixed(rotated[1], 6))]),
        ]),
        el("p", {}, [`PE(${p.value + k.value}) pair ${i}: (`, field("target0", fixed(target[0], 6)), ", ",
          field("target1", fixed(target[1], 6)), ")"]),
      );
    }
    return { draw: update };
  }

  // ------------------------------------------------------------------ mounting
  function settings(root, state, parts, withLength) {
    const redraw = () => parts.forEach((part) => part.draw());
    const row = el("div", { class: "pe-controls" }, [
      control("d_model", "d", { ...LIMITS.d, value: state.d }, (v) => { state.d = v; redraw(); }),
      control("base", "base", { ...LIMITS.base, value: state.base }, (v) => { state.base = v; redraw(); }, true),
    ]);
    if (withLength) {
      row.append(control("positions", "length", { ...LIMITS.length, value: state.length },
        (v) => { state.length = v; redraw(); }));
    }
    root.prepend(row);
  }

  function section(root, title) {
    const box = el("section", { class: "pe-section" }, [el("h3", { text: title })]);
    root.append(box);
    return box;
  }

  function mount(root) {
    if (root.dataset.mounted) return;
    root.dataset.mounted = "true";
    root.classList.add("pe-widget");
    const kind = root.dataset.peWidget;
    const state = { d: LIMITS.d.value, base: LIMITS.base.value, length: LIMITS.length.value };
    const parts = [];
    if (kind === "playground") {
      parts.push(heatmap(section(root, "The table"), state));
      parts.push(waves(section(root, "The waves"), state));
      parts.push(twoTokens(section(root, "Two tokens"), state));
      parts.push(pipeline(section(root, "One token through the pipeline"), state));
      settings(root, state, parts, true);
    } else if (kind === "table") {
      state.d = 16; state.length = 24;
      parts.push(heatmap(root, state));
      settings(root, state, parts, true);
    } else if (kind === "rotation") {
      state.d = 16;
      parts.push(rotationWidget(root, state));
      settings(root, state, parts, false);
    } else {
      return;
    }
    const redraw = () => parts.forEach((part) => part.draw());
    redraw();
    // Follow the palette switch, and the container's width (not its height,
    // which the redraw itself may change).
    new MutationObserver(redraw).observe(document.body, { attributes: true, attributeFilter: ["data-md-color-scheme"] });
    let width = root.clientWidth;
    let pending = false;
    window.addEventListener("resize", () => {
      if (pending) return;
      pending = true;
      requestAnimationFrame(() => {
        pending = false;
        if (root.isConnected && root.clientWidth !== width) { width = root.clientWidth; redraw(); }
      });
    });
  }

  function mountAll() {
    document.querySelectorAll("[data-pe-widget]").forEach(mount);
  }

  window.pePlayground = { PE, mountAll }; // for the console, and for the tests
  if (typeof document$ !== "undefined") document$.subscribe(mountAll);
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mountAll);
  else mountAll();
})();
