// The interactive playground and the small widgets on the formula and rotation
// pages. Plain JavaScript, no dependencies, nothing fetched: every number is
// computed here with the formula that pe uses (float64, as JavaScript numbers
// are), and tests/test_playground.py checks what the page shows against pe.
//
// A widget is any element with data-pe-widget="playground" | "table" | "rotation".
//
// Accessibility, in short: every canvas is role="img" with an aria-label that
// describes what it shows now; one polite live region per widget is written
// only after a commit (a click, a key, a changed input) and debounced, never on
// mouse moves; every input says what it accepts when its value is refused.
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
    // Every pair's frequency, for the loops that need them all (the same numbers).
    frequencies(d, base) {
      return Float64Array.from({ length: Math.ceil(d / 2) }, (_, i) => PE.frequency(i, d, base));
    },
    row(p, d, base, omega = PE.frequencies(d, base)) {
      const out = new Float64Array(d);
      for (let j = 0; j < d; j++) out[j] = j % 2 ? Math.cos(p * omega[j >> 1]) : Math.sin(p * omega[j >> 1]);
      return out;
    },
    dot(a, b) {
      let s = 0;
      for (let j = 0; j < a.length; j++) s += a[j] * b[j];
      return s;
    },
    norm(a) {
      return Math.sqrt(PE.dot(a, a));
    },
  };

  // ------------------------------------------------------------------ limits
  // A slider over a wide range moves through round values spaced evenly on a
  // log scale (1, 1.5, 2, 3, 5 and 7 in each decade), so that each of them,
  // 10000 included, is reached exactly and comes back exactly.
  function logStops(min, max) {
    const stops = [];
    for (let power = 1; power <= max; power *= 10) {
      for (const m of [1, 1.5, 2, 3, 5, 7]) if (m * power >= min && m * power <= max) stops.push(m * power);
    }
    return stops;
  }

  // kind "even": whole and even; "int": whole; "real": any number in range.
  const LIMITS = {
    d: { name: "d_model", kind: "even", min: 2, max: 512, value: 64, why: " (sin and cos come in pairs)" },
    base: { name: "base", kind: "real", min: 2, max: 1000000, value: 10000, stops: logStops(2, 1000000) },
    length: { name: "positions", kind: "int", min: 1, max: 256, value: 50 },
  };
  const SENTENCE = ["The", "cat", "sat", "on", "the", "mat", "because", "it", "was", "tired"];
  const MAX_WAVES = 4;

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

  let uid = 0;
  const newId = (stem) => `pe-${stem}-${++uid}`;

  function fixed(x, digits) {
    const s = x.toFixed(digits);
    return /^-0\.?0*$/.test(s) ? s.slice(1) : s; // no "-0.000000"
  }

  // A typed value against its limit: {value} or {error} in words.
  function check(text, limit) {
    const raw = String(text).trim();
    const shown = raw === "" ? "an empty box" : `“${raw}”`;
    const range = `from ${limit.min} to ${limit.max}`;
    const what = limit.kind === "even" ? `an even whole number ${range}`
      : limit.kind === "int" ? `a whole number ${range}` : `a number ${range}`;
    const expect = `${limit.name} must be ${what}${limit.why || ""}`;
    const n = raw === "" ? NaN : Number(raw);
    if (!Number.isFinite(n)) return { error: `${expect}; ${shown} is not a number.` };
    if (limit.kind !== "real" && !Number.isInteger(n)) return { error: `${expect}; ${raw} is not whole.` };
    if (n < limit.min) return { error: `${expect}; ${raw} is too small.` };
    if (n > limit.max) return { error: `${expect}; ${raw} is too large.` };
    if (limit.kind === "even" && n % 2) return { error: `${expect}; ${raw} is odd.` };
    return { value: n };
  }

  // One polite live region per widget, written only after the reader settles.
  function announcer(root) {
    const region = el("div", { class: "pe-sr-only", role: "status", "aria-live": "polite", "data-role": "announce" });
    root.append(region);
    let timer = 0;
    return (text) => {
      clearTimeout(timer);
      timer = setTimeout(() => { region.textContent = text; }, 600);
    };
  }

  // A labelled text box and a slider kept in step. The box says what it accepts
  // when a value is refused, and the figures keep the last good value.
  function control(limit, onChange, say) {
    const id = newId(limit.key || "control");
    const messageId = `${id}-message`;
    // With stops, the slider's own value is the index of the stop nearest (on a
    // log scale) to the value, and a typed value between two stops is kept.
    const stops = limit.stops;
    const toSlider = (v) => {
      if (!stops) return v;
      let best = 0;
      for (let k = 1; k < stops.length; k++) {
        if (Math.abs(Math.log(stops[k] / v)) < Math.abs(Math.log(stops[best] / v))) best = k;
      }
      return best;
    };
    const number = el("input", {
      type: "text", inputmode: limit.kind === "real" ? "decimal" : "numeric", id,
      value: String(limit.value), "data-control": limit.key, autocomplete: "off",
      spellcheck: "false", "aria-describedby": messageId,
    });
    const range = el("input", {
      type: "range", "aria-label": `${limit.name} slider`, "data-slider": limit.key,
      min: String(toSlider(limit.min)), max: String(toSlider(limit.max)),
      step: limit.kind === "even" && !stops ? "2" : "1",
      value: String(toSlider(limit.value)), "aria-valuetext": String(limit.value),
    });
    const message = el("p", { class: "pe-message", id: messageId, "data-role": `message-${limit.key}`, hidden: "" });
    let current = limit.value;
    const showError = (text) => {
      message.textContent = text ? `${text} The figures still show ${limit.name} = ${current}.` : "";
      message.hidden = !text;
      if (text) number.setAttribute("aria-invalid", "true"); else number.removeAttribute("aria-invalid");
    };
    const accept = (value, fromSlider, quiet) => {
      current = value;
      number.value = String(value);
      range.setAttribute("aria-valuetext", String(value));
      if (!fromSlider) range.value = String(toSlider(value));
      showError("");
      if (!quiet) onChange(value);
    };
    number.addEventListener("change", () => {
      const result = check(number.value, limit);
      if ("error" in result) {
        showError(result.error);
        if (say) say(message.textContent);
      } else if (result.value !== current || number.getAttribute("aria-invalid")) {
        accept(result.value, false);
        if (say) say(`${limit.name} ${result.value}`);
      }
    });
    number.addEventListener("keydown", (event) => {
      if (event.key === "Enter") number.dispatchEvent(new Event("change"));
    });
    range.addEventListener("input", () => {
      const raw = stops ? stops[Number(range.value)] : Number(range.value);
      const value = Math.min(limit.max, Math.max(limit.min, Math.round(raw)));
      accept(value, true);
    });
    range.addEventListener("change", () => { if (say) say(`${limit.name} ${current}`); });
    const node = el("div", { class: "pe-control" }, [
      el("label", { for: id, text: limit.name }), number, range, message,
    ]);
    return {
      node,
      get value() { return current; },
      // A dependent limit changed (for example p when the positions shrink):
      // the value follows, and the caller redraws.
      setLimits(min, max) {
        limit.min = min; limit.max = max;
        range.min = String(toSlider(min)); range.max = String(toSlider(max));
        if (current > max || current < min) accept(Math.min(max, Math.max(min, current)), false, true);
        return current;
      },
      set(value) { accept(value, false); },
    };
  }

  function button(text, action, attrs) {
    return el("button", { type: "button", class: "pe-button", "data-action": action, ...(attrs || {}), text });
  }

  // Colours follow the site's palette: read Material's CSS variables each draw.
  function theme(node) {
    const style = getComputedStyle(node);
    const dark = document.body.getAttribute("data-md-color-scheme") === "slate";
    return {
      dark,
      fg: style.getPropertyValue("--md-default-fg-color").trim() || (dark ? "#e6edf3" : "#1f2328"),
      bg: style.getPropertyValue("--md-default-bg-color").trim() || (dark ? "#1e2129" : "#ffffff"),
      grid: dark ? "rgba(255,255,255,0.18)" : "rgba(0,0,0,0.14)",
      mark: dark ? "#ffd54f" : "#6a1b9a",
      // Four lines told apart by colour and by dash; each at least 3:1 on the page.
      lines: dark
        ? ["#8c9eff", "#ffab40", "#69f0ae", "#ea80fc"]
        : ["#283593", "#b34700", "#1b5e20", "#8e24aa"],
      dashes: [[], [7, 4], [2, 3], [9, 3, 2, 3]],
    };
  }

  // A diverging map from -1 (blue) through 0 (the page) to +1 (red): the colour
  // of v as [r, g, b], or written into `out` from index `at` (the heatmap's pixels).
  const MID = { light: [247, 247, 247], dark: [44, 46, 58] };
  const NEGATIVE = { light: [33, 102, 172], dark: [86, 160, 235] };
  const POSITIVE = { light: [178, 24, 43], dark: [240, 96, 96] };
  function diverging(v, dark, out = [0, 0, 0], at = 0) {
    const t = Math.max(-1, Math.min(1, v));
    const scheme = dark ? "dark" : "light";
    const mid = MID[scheme], end = (t < 0 ? NEGATIVE : POSITIVE)[scheme];
    const a = Math.abs(t);
    for (let i = 0; i < 3; i++) out[at + i] = Math.round(mid[i] + (end[i] - mid[i]) * a);
    return out;
  }
  const rgb = (c) => `rgb(${c[0]},${c[1]},${c[2]})`;

  // Values (rows x columns, row by row) as coloured cells filling the box at
  // (x, y) of size w x h: one pixel a value, scaled up without smoothing.
  function paintCells(ctx, values, rows, columns, dark, x, y, w, h) {
    const image = new ImageData(columns, rows);
    for (let k = 0; k < rows * columns; k++) {
      diverging(values[k], dark, image.data, 4 * k);
      image.data[4 * k + 3] = 255;
    }
    const scratch = document.createElement("canvas");
    scratch.width = columns; scratch.height = rows;
    scratch.getContext("2d").putImageData(image, 0, 0);
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(scratch, x, y, w, h);
  }

  // A canvas as wide as its box and as tall as its figure() said, drawn sharp
  // on the screen's pixels. Its size on the page is left to the style figure()
  // gave it, so that sizing it changes no layout: a part draws its canvases
  // before it writes its text, and the page is laid out once, not once a canvas.
  function sizeCanvas(canvas) {
    const ratio = window.devicePixelRatio || 1;
    const width = Math.max(200, canvas.parentElement.clientWidth);
    const height = canvas.peHeight;
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
    const ctx = canvas.getContext("2d");
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, width, height);
    return { ctx, width, height };
  }

  // A canvas in a figure, given its size on the page as it is built, so that the
  // page does not move when it is first drawn (a frame or more later).
  function figure(parent, role, height) {
    const canvas = el("canvas", { role: "img", "data-role": role, style: `width: 100%; height: ${height}px` });
    canvas.peHeight = height;
    parent.append(el("figure", { class: "pe-figure" }, [el("div", { class: "pe-canvas-box" }, [canvas])]));
    return canvas;
  }

  // A tick step that leaves at least `room` pixels between labels.
  function tickStep(span, pixels, room) {
    const steps = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000];
    for (const s of steps) if ((s / Math.max(span, 1)) * pixels >= room) return s;
    return steps[steps.length - 1];
  }

  // Text in the page's colour on a halo of the background, readable over lines.
  function text(ctx, colours, value, x, y, align, baseline) {
    ctx.save();
    ctx.setLineDash([]);
    ctx.textAlign = align || "left";
    ctx.textBaseline = baseline || "alphabetic";
    ctx.strokeStyle = colours.bg; ctx.lineWidth = 3; ctx.lineJoin = "round";
    ctx.strokeText(value, x, y);
    ctx.fillStyle = colours.fg;
    ctx.fillText(value, x, y);
    ctx.restore();
  }

  // Labels for positions p and q, set in the band above a plot (where no data
  // is drawn): each centred over its position, with a small triangle pointing
  // down at it; if the two would touch, they move apart. Their boxes are kept
  // on the canvas (data-labels) for the tests.
  function markLabels(ctx, colours, canvas, marks, plot) {
    ctx.save();
    ctx.font = "bold 11px sans-serif";
    ctx.textBaseline = "top";
    ctx.textAlign = "left";
    const boxes = marks.map(([label, x]) => {
      const w = ctx.measureText(label).width;
      return { label, x, left: x - w / 2, w };
    }).sort((a, b) => a.x - b.x);
    if (boxes.length === 2 && boxes[0].left + boxes[0].w + 6 > boxes[1].left) {
      const middle = (boxes[0].left + boxes[0].w + boxes[1].left) / 2;
      boxes[0].left = middle - 3 - boxes[0].w;
      boxes[1].left = middle + 3;
    }
    const shift = Math.max(0, plot.left - boxes[0].left) - Math.max(0, boxes[boxes.length - 1].left + boxes[boxes.length - 1].w - (plot.left + plot.width));
    const kept = [];
    ctx.fillStyle = colours.mark;
    for (const box of boxes) {
      const left = box.left + shift, y = plot.top - 19;
      ctx.fillText(box.label, left, y);
      ctx.beginPath(); ctx.moveTo(box.x, plot.top - 1); ctx.lineTo(box.x - 4, plot.top - 6); ctx.lineTo(box.x + 4, plot.top - 6); ctx.fill();
      kept.push({ label: box.label, x: left, y, width: box.w, height: 12 });
    }
    ctx.restore();
    canvas.dataset.labels = JSON.stringify(kept);
  }

  // ------------------------------------------------------------------ the heatmap
  // Rows are positions (0 at the top), columns dimensions; hover, click or the
  // arrow keys pick a cell. Rows p and q of the comparison are marked.
  function heatmap(root, state, say) {
    const canvas = figure(root, "heatmap", 280);
    canvas.setAttribute("tabindex", "0");
    const legend = el("div", { class: "pe-scale", "data-role": "colour-scale" });
    const readout = el("p", { class: "pe-readout", "data-role": "cell-readout", id: newId("readout") });
    canvas.setAttribute("aria-describedby", readout.id); // the selected cell, read on focus
    root.append(legend, readout);
    const cursor = { p: Math.min(7, state.length - 1), j: 2 };
    const pad = { left: 40, right: 24, top: 8, bottom: 36 };

    function cellText() {
      const { d, base } = state;
      const kind = cursor.j % 2 === 0 ? "sin" : "cos";
      return `position ${cursor.p}, dimension ${cursor.j} (${kind}, pair ${Math.floor(cursor.j / 2)}): `
        + `angle ${fixed(PE.angle(cursor.p, cursor.j, d, base), 6)} rad, value ${fixed(PE.value(cursor.p, cursor.j, d, base), 6)}`;
    }

    function describe() {
      const { d, base } = state;
      const pair = Math.floor(cursor.j / 2);
      const kind = cursor.j % 2 === 0 ? "sin" : "cos";
      readout.replaceChildren(
        "position ", el("b", { "data-field": "position", text: String(cursor.p) }),
        " · dimension ", el("b", { "data-field": "dimension", text: String(cursor.j) }),
        ` (${kind}, pair ${pair}) · angle `, el("b", { "data-field": "angle", text: fixed(PE.angle(cursor.p, cursor.j, d, base), 6) }),
        " rad · value ", el("b", { "data-field": "value", text: fixed(PE.value(cursor.p, cursor.j, d, base), 6) }),
      );
      canvas.setAttribute("aria-label",
        `Heatmap of the encoding: ${state.length} positions down, ${d} dimensions across, base ${state.base}. `
        + "Colour runs from blue for −1 through the page colour for 0 to red for +1. "
        + "The left columns change colour from row to row; the right columns stay almost constant, 0 in the sine columns and 1 in the cosine columns. "
        + "Arrow keys move the selected cell.");
    }

    function drawLegend(colours) {
      const stops = [];
      for (let k = 0; k <= 10; k++) stops.push(`${rgb(diverging(-1 + k / 5, colours.dark))} ${k * 10}%`);
      legend.replaceChildren(
        el("span", { class: "pe-scale-label", text: "−1" }),
        el("span", { class: "pe-scale-bar", role: "img", style: `background: linear-gradient(to right, ${stops.join(", ")})`,
          "aria-label": "Colour scale: blue is −1, the page colour is 0, red is +1" }),
        el("span", { class: "pe-scale-label", text: "+1" }),
        el("span", { class: "pe-scale-note", text: "value of PE(position, dimension)" }),
      );
    }

    function draw() {
      const { d, base, length } = state;
      const { ctx, width, height } = sizeCanvas(canvas);
      const colours = theme(root);
      const plotW = width - pad.left - pad.right, plotH = height - pad.top - pad.bottom;
      Object.assign(canvas.dataset, { plotLeft: pad.left, plotTop: pad.top, plotWidth: plotW, plotHeight: plotH });
      const omega = PE.frequencies(d, base);
      const values = new Float64Array(length * d);
      for (let p = 0; p < length; p++) values.set(PE.row(p, d, base, omega), p * d);
      paintCells(ctx, values, length, d, colours.dark, pad.left, pad.top, plotW, plotH);
      ctx.strokeStyle = colours.fg; ctx.lineWidth = 1;
      ctx.strokeRect(pad.left - 0.5, pad.top - 0.5, plotW + 1, plotH + 1);
      // Ticks and labels: position down the left, dimension along the bottom.
      ctx.font = "11px sans-serif";
      const w = plotW / d, h = plotH / length;
      const rowStep = tickStep(length, plotH, 22);
      for (let p = 0; p < length; p += rowStep) {
        const y = pad.top + (p + 0.5) * h;
        ctx.beginPath(); ctx.moveTo(pad.left - 4, y); ctx.lineTo(pad.left, y); ctx.stroke();
        text(ctx, colours, String(p), pad.left - 6, y, "right", "middle");
      }
      const colStep = tickStep(d, plotW, 30);
      for (let j = 0; j < d; j += colStep) {
        const x = pad.left + (j + 0.5) * w;
        ctx.beginPath(); ctx.moveTo(x, pad.top + plotH); ctx.lineTo(x, pad.top + plotH + 4); ctx.stroke();
        text(ctx, colours, String(j), x, pad.top + plotH + 6, "center", "top");
      }
      text(ctx, colours, "dimension →", pad.left + plotW / 2, height - 2, "center", "bottom");
      ctx.save(); ctx.translate(10, pad.top + plotH / 2); ctx.rotate(-Math.PI / 2);
      text(ctx, colours, "← position", 0, 0, "center", "middle"); ctx.restore();
      // Rows p and q of the comparison: a small triangle and letter on the right.
      ctx.fillStyle = colours.mark;
      for (const [name, p] of [["p", state.p], ["q", state.q]]) {
        if (p === undefined || p >= length) continue;
        const y = pad.top + (p + 0.5) * h, x = pad.left + plotW + 2;
        ctx.beginPath(); ctx.moveTo(x, y); ctx.lineTo(x + 7, y - 5); ctx.lineTo(x + 7, y + 5); ctx.fill();
        ctx.font = "bold 11px sans-serif"; ctx.textAlign = "left"; ctx.textBaseline = "middle";
        ctx.fillText(name, x + 9, name === "q" && Math.abs(state.q - state.p) * h < 11 ? y + 8 : y);
      }
      ctx.font = "11px sans-serif";
      cursor.p = Math.min(cursor.p, length - 1);
      cursor.j = Math.min(cursor.j, d - 1);
      ctx.strokeStyle = colours.fg; ctx.lineWidth = 2;
      ctx.strokeRect(pad.left + cursor.j * w - 1, pad.top + cursor.p * h - 1, Math.max(w, 2) + 2, Math.max(h, 2) + 2);
      drawLegend(colours);
      describe();
    }

    function pick(event, commit) {
      const rect = canvas.getBoundingClientRect();
      const plotW = rect.width - pad.left - pad.right, plotH = rect.height - pad.top - pad.bottom;
      const j = Math.floor(((event.clientX - rect.left - pad.left) / plotW) * state.d);
      const p = Math.floor(((event.clientY - rect.top - pad.top) / plotH) * state.length);
      if (j < 0 || p < 0 || j >= state.d || p >= state.length) return;
      if (j !== cursor.j || p !== cursor.p) { cursor.j = j; cursor.p = p; draw(); }
      if (commit) say(cellText());
    }
    canvas.addEventListener("mousemove", (event) => pick(event, false));
    canvas.addEventListener("click", (event) => pick(event, true));
    canvas.addEventListener("keydown", (event) => {
      const page = Math.max(1, Math.round(state.length / 10));
      const moves = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0], PageUp: [-page, 0], PageDown: [page, 0] };
      if (event.key === "Home") { cursor.p = 0; cursor.j = 0; }
      else if (event.key === "End") { cursor.p = state.length - 1; cursor.j = state.d - 1; }
      else if (moves[event.key]) {
        const [dp, dj] = moves[event.key];
        cursor.p = Math.min(state.length - 1, Math.max(0, cursor.p + dp));
        cursor.j = Math.min(state.d - 1, Math.max(0, cursor.j + dj));
      } else return;
      event.preventDefault();
      draw();
      say(cellText());
    });
    return { draw };
  }

  // ------------------------------------------------------------------ the waves
  // Each chosen dimension as a continuous curve of the position (sampled at
  // every pixel), with the whole positions the model sees marked as dots.
  function waves(root, state, say) {
    const id = newId("dims");
    const dims = el("input", {
      type: "text", id, value: "0, 1, 10, 30", "data-control": "dims", autocomplete: "off",
      spellcheck: "false", "aria-describedby": `${id}-message`,
    });
    const message = el("p", { class: "pe-message", id: `${id}-message`, "data-role": "message-dims", hidden: "" });
    root.append(el("div", { class: "pe-controls" }, [
      el("div", { class: "pe-control" }, [el("label", { for: id, text: `dimensions (up to ${MAX_WAVES}, separated by commas)` }), dims, message]),
    ]));
    const canvas = figure(root, "waves", 244);
    const legend = el("p", { class: "pe-legend", "data-role": "waves-legend" });
    root.append(legend);
    let chosen = [0, 1, 10, 30];
    const pad = { left: 40, right: 12, top: 24, bottom: 38 };

    // The typed list, or an error in words.
    function parse(value, d) {
      const parts = value.split(/[\s,;]+/).filter(Boolean);
      if (!parts.length) return { error: `Enter at least one dimension, a whole number from 0 to ${d - 1}.` };
      if (parts.length > MAX_WAVES) return { error: `Enter at most ${MAX_WAVES} dimensions; there are ${parts.length}.` };
      const out = [];
      for (const part of parts) {
        const n = Number(part);
        if (!/^[+-]?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(part) || !Number.isFinite(n)) return { error: `“${part}” is not a number: enter whole numbers from 0 to ${d - 1}.` };
        if (!Number.isInteger(n)) return { error: `${part} is not whole: dimensions are numbered 0 to ${d - 1}.` };
        if (n < 0 || n >= d) return { error: `There is no dimension ${part}: with d_model = ${d} they run from 0 to ${d - 1}.` };
        if (!out.includes(n)) out.push(n);
      }
      return { value: out };
    }

    function commit(announce) {
      const result = parse(dims.value, state.d);
      if ("error" in result) {
        const kept = chosen.filter((j) => j < state.d);
        chosen = kept.length ? kept : [0];
        message.textContent = `${result.error} The plot still shows dimensions ${chosen.join(", ")}.`;
        message.hidden = false;
        dims.setAttribute("aria-invalid", "true");
        if (announce) say(message.textContent);
      } else {
        chosen = result.value;
        message.hidden = true; message.textContent = "";
        dims.removeAttribute("aria-invalid");
        if (announce) say(`plotting dimensions ${chosen.join(", ")}`);
      }
    }

    function draw() {
      const { d, base, length } = state;
      const { ctx, width, height } = sizeCanvas(canvas);
      const colours = theme(root);
      commit(false);
      const plotW = width - pad.left - pad.right, plotH = height - pad.top - pad.bottom;
      Object.assign(canvas.dataset, { plotLeft: pad.left, plotTop: pad.top, plotWidth: plotW, plotHeight: plotH });
      const span = Math.max(1, length - 1);
      const x = (p) => pad.left + (p / span) * plotW;
      const y = (v) => pad.top + ((1 - v) / 2) * plotH;
      ctx.font = "11px sans-serif"; ctx.lineWidth = 1;
      for (const v of [-1, -0.5, 0, 0.5, 1]) {
        ctx.strokeStyle = colours.grid;
        ctx.beginPath(); ctx.moveTo(pad.left, y(v)); ctx.lineTo(pad.left + plotW, y(v)); ctx.stroke();
        text(ctx, colours, v === 0 ? "0" : String(v).replace("-", "−"), pad.left - 6, y(v), "right", "middle");
      }
      const step = tickStep(span, plotW, 36);
      for (let p = 0; p <= span; p += step) {
        ctx.strokeStyle = colours.grid;
        ctx.beginPath(); ctx.moveTo(x(p), pad.top); ctx.lineTo(x(p), pad.top + plotH); ctx.stroke();
        text(ctx, colours, String(p), x(p), pad.top + plotH + 5, "center", "top");
      }
      ctx.strokeStyle = colours.fg;
      ctx.strokeRect(pad.left - 0.5, pad.top - 0.5, plotW + 1, plotH + 1);
      text(ctx, colours, "position →", pad.left + plotW / 2, height - 2, "center", "bottom");
      ctx.save(); ctx.translate(10, pad.top + plotH / 2); ctx.rotate(-Math.PI / 2);
      text(ctx, colours, "value", 0, 0, "center", "middle"); ctx.restore();
      // p and q of the comparison, as the heatmap marks them: dashed lines, and
      // their letters above the plot, where no curve runs.
      ctx.strokeStyle = colours.mark; ctx.setLineDash([4, 3]);
      const marks = [];
      for (const [name, p] of [["p", state.p], ["q", state.q]]) {
        if (p === undefined || p > span) continue;
        ctx.beginPath(); ctx.moveTo(x(p), pad.top); ctx.lineTo(x(p), pad.top + plotH); ctx.stroke();
        marks.push([name, x(p)]);
      }
      ctx.setLineDash([]);
      if (marks.length) markLabels(ctx, colours, canvas, marks, { left: pad.left, top: pad.top, width: plotW });
      const dotted = plotW / span >= 4; // mark whole positions while they stay apart
      legend.replaceChildren();
      const words = [];
      chosen.forEach((j, n) => {
        const colour = colours.lines[n % colours.lines.length];
        ctx.strokeStyle = colour; ctx.fillStyle = colour; ctx.lineWidth = 2;
        ctx.setLineDash(colours.dashes[n % colours.dashes.length]);
        ctx.beginPath();
        for (let px = 0; px <= plotW; px += 1) {
          const p = (px / plotW) * span;
          const v = PE.value(p, j, d, base);
          if (px === 0) ctx.moveTo(pad.left + px, y(v)); else ctx.lineTo(pad.left + px, y(v));
        }
        ctx.stroke();
        ctx.setLineDash([]);
        if (dotted) {
          for (let p = 0; p <= span && p < length; p++) {
            ctx.beginPath(); ctx.arc(x(p), y(PE.value(p, j, d, base)), 2.2, 0, 2 * Math.PI); ctx.fill();
          }
        }
        const wavelength = (2 * Math.PI) / PE.frequency(Math.floor(j / 2), d, base);
        const label = `dim ${j} (${j % 2 ? "cos" : "sin"}, wavelength ${wavelength.toFixed(1)})`;
        words.push(label);
        const swatch = el("span", { class: "pe-swatch", "aria-hidden": "true" });
        swatch.style.borderTop = `3px ${["solid", "dashed", "dotted", "dashed"][n % 4]} ${colour}`;
        legend.append(el("span", { class: "pe-legend-item" }, [swatch, label]));
      });
      canvas.setAttribute("aria-label",
        `Line plot of the encoding against position, from 0 to ${length - 1}, values from −1 to 1, d_model ${d}, base ${base}: `
        + `${words.join("; ")}. ${dotted ? "Dots mark the whole positions. " : ""}`
        + "A dimension with a short wavelength turns many times across the plot; a long one barely moves.");
    }
    dims.addEventListener("change", () => { commit(true); draw(); });
    dims.addEventListener("keydown", (event) => { if (event.key === "Enter") dims.dispatchEvent(new Event("change")); });
    return { draw };
  }

  // ------------------------------------------------------------------ two positions
  function compare(root, state, say, onMove) {
    // Built after the reader may have cut the positions short (the playground is
    // built a part a frame): p and q start inside them.
    state.p = Math.min(state.p, state.length - 1);
    state.q = Math.min(state.q, state.length - 1);
    const p = control({ key: "p", name: "p", kind: "int", min: 0, max: state.length - 1, value: state.p },
      (v) => { state.p = v; onMove(); }, say);
    const q = control({ key: "q", name: "q", kind: "int", min: 0, max: state.length - 1, value: state.q },
      (v) => { state.q = v; onMove(); }, say);
    const pairLimit = { key: "pair", name: "pair i", kind: "int", min: 0, max: state.d / 2 - 1, value: 0 };
    const pair = control(pairLimit, () => update(), say);
    // Shift both positions by one: the offset stays, and so does the dot product.
    // At an edge of the table a button is marked unavailable (aria-disabled,
    // so that it keeps the focus) and a line under the buttons says why.
    const blocked = (by) => {
      const top = state.length - 1;
      if (by < 0 && Math.min(state.p, state.q) === 0) {
        return `both − 1 is off: ${state.p === 0 ? "p" : "q"} is already at position 0, the first.`;
      }
      if (by > 0 && Math.max(state.p, state.q) === top) {
        return `both + 1 is off: ${state.p === top ? "p" : "q"} is already at position ${top}, the last of ${state.length}.`;
      }
      return "";
    };
    const shift = (by) => {
      const why = blocked(by);
      if (why) {
        say(why);
        return;
      }
      p.set(state.p + by); q.set(state.q + by);
      say(`p ${state.p}, q ${state.q}: dot product ${fixed(PE.dot(PE.row(state.p, state.d, state.base), PE.row(state.q, state.d, state.base)), 6)}`);
    };
    // Each button is named by its visible words, then what it does.
    const earlier = el("button", { type: "button", class: "pe-button", "data-action": "shift-down" }, [
      el("span", { "aria-hidden": "true", text: "◀ " }), "both − 1",
      el("span", { class: "pe-sr-only", text: ": move p and q one position earlier" })]);
    const later = el("button", { type: "button", class: "pe-button", "data-action": "shift-up" }, [
      "both + 1", el("span", { "aria-hidden": "true", text: " ▶" }),
      el("span", { class: "pe-sr-only", text: ": move p and q one position later" })]);
    const edge = el("p", { class: "pe-hint pe-edge", id: newId("edge"), "data-role": "shift-edge", hidden: "" });
    earlier.addEventListener("click", () => shift(-1));
    later.addEventListener("click", () => shift(1));
    root.append(el("div", { class: "pe-controls" }, [p.node, q.node,
      el("div", { class: "pe-buttons", role: "group", "aria-label": "Shift both positions" }, [earlier, later, edge])]));

    function markEdges() {
      const reasons = [];
      for (const [node, by] of [[earlier, -1], [later, 1]]) {
        const why = blocked(by);
        if (why) {
          reasons.push(why);
          node.setAttribute("aria-disabled", "true");
          node.setAttribute("aria-describedby", edge.id);
        } else {
          node.removeAttribute("aria-disabled");
          node.removeAttribute("aria-describedby");
        }
      }
      edge.textContent = reasons.join(" ");
      edge.hidden = !reasons.length;
    }
    const vectors = figure(root, "vectors", 104);
    const curve = figure(root, "similarity", 180);
    const results = el("div", { class: "pe-results", "data-role": "pair-results" });
    const tableBox = el("div", { class: "pe-scroll", tabindex: "0", role: "region", "aria-label": "PE(p) and PE(q), first dimensions" });
    const rotation = el("div", { class: "pe-results", "data-role": "rotation-results" });
    root.append(results, tableBox, el("div", { class: "pe-controls" }, [pair.node]), rotation);

    function drawVectors(A, B) {
      const { d } = state;
      const { ctx, width, height } = sizeCanvas(vectors);
      const colours = theme(root);
      const left = 62, right = 10, rowH = 22, gap = 6;
      const plotW = width - left - right;
      const rows = [[`PE(${state.p})`, A], [`PE(${state.q})`, B], ["product", A.map((a, j) => a * B[j])]];
      ctx.font = "11px sans-serif";
      rows.forEach(([label, values], r) => {
        const top = 4 + r * (rowH + gap);
        paintCells(ctx, values, 1, d, colours.dark, left, top, plotW, rowH);
        ctx.strokeStyle = colours.fg; ctx.lineWidth = 1;
        ctx.strokeRect(left - 0.5, top - 0.5, plotW + 1, rowH + 1);
        text(ctx, colours, label, left - 6, top + rowH / 2, "right", "middle");
      });
      text(ctx, colours, "dimension 0 →", left, height - 2, "left", "bottom");
      text(ctx, colours, `${d - 1}`, left + plotW, height - 2, "right", "bottom");
      vectors.setAttribute("aria-label",
        `Three strips of ${d} coloured cells, blue −1 to red +1: the encoding of position ${state.p}, of position ${state.q}, `
        + "and their product, dimension by dimension. The product is red, positive, wherever the two agree; its sum is the dot product. "
        + "The slow right-hand dimensions agree for any two nearby positions.");
    }

    function drawCurve(A) {
      const { d, base, length } = state;
      const { ctx, width, height } = sizeCanvas(curve);
      const colours = theme(root);
      const pad = { left: 40, right: 12, top: 24, bottom: 38 };
      const plotW = width - pad.left - pad.right, plotH = height - pad.top - pad.bottom;
      Object.assign(curve.dataset, { plotLeft: pad.left, plotTop: pad.top, plotWidth: plotW, plotHeight: plotH });
      const span = Math.max(1, length - 1);
      const values = [];
      const omega = PE.frequencies(d, base);
      for (let x = 0; x < length; x++) values.push(PE.dot(A, PE.row(x, d, base, omega)));
      const top = d / 2, bottom = Math.min(0, ...values);
      const X = (x) => pad.left + (x / span) * plotW;
      const Y = (v) => pad.top + ((top - v) / (top - bottom || 1)) * plotH;
      ctx.font = "11px sans-serif"; ctx.lineWidth = 1;
      for (const v of [bottom, 0, top]) {
        ctx.strokeStyle = colours.grid;
        ctx.beginPath(); ctx.moveTo(pad.left, Y(v)); ctx.lineTo(pad.left + plotW, Y(v)); ctx.stroke();
        text(ctx, colours, fixed(v, v === Math.round(v) ? 0 : 1).replace("-", "−"), pad.left - 6, Y(v), "right", "middle");
      }
      const step = tickStep(span, plotW, 36);
      for (let x = 0; x <= span; x += step) text(ctx, colours, String(x), X(x), pad.top + plotH + 5, "center", "top");
      ctx.strokeStyle = colours.fg;
      ctx.strokeRect(pad.left - 0.5, pad.top - 0.5, plotW + 1, plotH + 1);
      text(ctx, colours, `position x →   (dot product of PE(${state.p}) with PE(x))`, pad.left + plotW / 2, height - 2, "center", "bottom");
      ctx.strokeStyle = colours.lines[0]; ctx.lineWidth = 2;
      ctx.beginPath();
      values.forEach((v, x) => (x ? ctx.lineTo(X(x), Y(v)) : ctx.moveTo(X(x), Y(v))));
      ctx.stroke();
      ctx.fillStyle = colours.mark;
      for (const x of [state.p, state.q]) {
        ctx.beginPath(); ctx.arc(X(x), Y(values[x]), 4.5, 0, 2 * Math.PI); ctx.fill();
      }
      // The labels sit above the plot, clear of the curve.
      markLabels(ctx, colours, curve, [[`p = ${state.p}`, X(state.p)], [`q = ${state.q}`, X(state.q)]],
        { left: pad.left, top: pad.top, width: plotW });
      curve.setAttribute("aria-label",
        `Line plot of the dot product between the encoding of position ${state.p} and of every position from 0 to ${length - 1}. `
        + `It peaks at ${fixed(top, 0)}, which is d_model / 2, at x = ${state.p} and falls off on both sides alike, because it depends only on the distance. `
        + `At q = ${state.q} it is ${fixed(values[state.q], 3)}.`);
    }

    function update() {
      const { d, base } = state;
      const a = state.p, b = state.q;
      const A = PE.row(a, d, base), B = PE.row(b, d, base);
      drawVectors(A, B);
      drawCurve(A);
      pair.setLimits(0, d / 2 - 1);
      markEdges();
      const dot = PE.dot(A, B);
      const cosine = dot / (PE.norm(A) * PE.norm(B));
      let squared = 0;
      for (let j = 0; j < d; j++) squared += (A[j] - B[j]) ** 2;
      const field = (name, value) => el("b", { "data-field": name, text: value });
      results.replaceChildren(
        el("p", {}, ["positions p = ", field("a", String(a)), " and q = ", field("b", String(b)), ", offset k = q − p = ", field("offset", String(b - a))]),
        el("p", {}, ["dot product ", field("dot", fixed(dot, 6)), ` (at most d/2 = ${d / 2}) · cosine similarity `,
          field("cosine", fixed(cosine, 6)), " · distance ", field("distance", fixed(Math.sqrt(squared), 6))]),
      );
      const shown = Math.min(d, 8);
      const rows = [];
      for (let j = 0; j < shown; j++) {
        rows.push(el("tr", { "data-dimension": String(j) }, [
          el("td", { text: String(j) }),
          el("td", { "data-field": "pe-p", text: fixed(A[j], 6) }),
          el("td", { "data-field": "pe-q", text: fixed(B[j], 6) }),
          el("td", { "data-field": "product", text: fixed(A[j] * B[j], 6) }),
        ]));
      }
      tableBox.replaceChildren(el("table", { class: "pe-table", "data-role": "compare-table" }, [
        el("caption", { text: `The first ${shown} of ${d} dimensions` }),
        el("thead", {}, [el("tr", {}, ["dim", `PE(${a})`, `PE(${b})`, "product"].map((h) => el("th", { scope: "col", text: h })))]),
        el("tbody", {}, rows),
      ]));
      // The rotation property on one pair: R(k omega_i) applied to PE(p)'s pair gives PE(q)'s.
      const i = pair.value;
      const turn = (b - a) * PE.frequency(i, d, base);
      const c = Math.cos(turn), s = Math.sin(turn);
      const start = [A[2 * i], A[2 * i + 1]];
      const rotated = [c * start[0] + s * start[1], -s * start[0] + c * start[1]];
      rotation.replaceChildren(
        el("p", {}, [`Pair ${i} of PE(${a}), turned by k·ω = `, field("turn", fixed(turn, 6)), " rad:"]),
        product(field, c, s, start, rotated, { "data-role": "rotation" }),
        el("p", {}, [`and pair ${i} of PE(${b}) is (`, field("target0", fixed(B[2 * i], 6)), ", ",
          field("target1", fixed(B[2 * i + 1], 6)), "): the same, as the rotation property says."]),
      );
    }
    return {
      draw: update,
      resize() { state.p = p.setLimits(0, state.length - 1); state.q = q.setLimits(0, state.length - 1); },
    };
  }

  // R(k omega) x (a pair) = (the pair turned): each operand in brackets (CSS),
  // each operator before its operand. One row where it fits; on a narrow widget
  // one operand a line, the operator at its left (see .pe-matrix in the CSS).
  function product(field, c, s, start, rotated, attributes) {
    const bracket = (kind, names, values) => el("span", { class: "pe-bracket " + kind },
      names.map((name, n) => field(name, fixed(values[n], 6))));
    return el("div", Object.assign({ class: "pe-matrix" }, attributes), [
      el("span", { class: "pe-op", "aria-hidden": "true" }),
      bracket("pe-cells", ["m00", "m01", "m10", "m11"], [c, s, -s, c]),
      el("span", { class: "pe-op", text: "×" }),
      bracket("pe-vector", ["start0", "start1"], start),
      el("span", { class: "pe-op", text: "=" }),
      bracket("pe-vector", ["rotated0", "rotated1"], rotated),
    ]);
  }

  // ------------------------------------------------------------------ the pipeline
  // A deterministic pseudo-random token embedding: normal entries with standard
  // deviation d^-1/2 (so its norm is near 1), the usual initialisation.
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

  const STEPS = [
    { key: "embedding", title: "token embedding e", short: "e", note: "a row of the embedding table; entries near ±1/√d, so its norm is near 1" },
    { key: "scaled", title: "e × √d", short: "e × √d", note: "scaled up so that its norm is near √d" },
    { key: "encoding", title: "+ encoding PE(p)", short: "PE(p)", note: "the encoding of the token's position: entries in [−1, 1], norm exactly √(d/2)" },
    { key: "sum", title: "sum e√d + PE(p)", short: "sum", note: "what the first layer sees: neither part drowns the other" },
  ];

  function pipeline(root, state, say) {
    const selectId = newId("token");
    const select = el("select", { id: selectId, "data-control": "token" },
      SENTENCE.map((word, p) => el("option", { value: String(p), text: `${p}: ${word}` })));
    select.value = "3";
    const back = button("◀ Step back", "back");
    const play = button("▶ Play", "play", { "aria-pressed": "false" });
    const forward = button("Step ▶", "forward");
    const stepLabel = el("p", { class: "pe-step-label", "data-role": "step-label" });
    root.append(
      el("div", { class: "pe-controls" }, [
        el("div", { class: "pe-control" }, [el("label", { for: selectId, text: "token" }), select]),
        el("div", { class: "pe-buttons", role: "group", "aria-label": "Pipeline steps" }, [back, play, forward]),
      ]),
      stepLabel,
    );
    const list = el("ol", { class: "pe-steps", "data-role": "pipeline-steps" });
    root.append(list);
    const canvas = figure(root, "pipeline-bars", 170);
    const tableBox = el("div", { class: "pe-scroll", tabindex: "0", role: "region", "aria-label": "The pipeline, first dimensions" });
    const output = el("div", { "data-role": "pipeline" }, [tableBox]);
    root.append(output);
    let step = 0;
    let timer = 0;
    const captionId = newId("pipeline-caption");

    function vectors() {
      const { d, base } = state;
      const p = Number(select.value);
      const e = embedding(SENTENCE[p], d);
      const scaled = e.map((v) => v * Math.sqrt(d));
      const code = PE.row(p, d, base);
      return { p, embedding: e, scaled, encoding: code, sum: scaled.map((v, j) => v + code[j]) };
    }

    function stopPlaying() {
      clearInterval(timer); timer = 0;
      play.textContent = "▶ Play"; play.setAttribute("aria-pressed", "false");
    }

    function go(to, announce) {
      step = Math.max(0, Math.min(STEPS.length - 1, to));
      update();
      if (announce) {
        const v = vectors();
        say(`Step ${step + 1} of ${STEPS.length}: ${STEPS[step].title}, norm ${fixed(PE.norm(v[STEPS[step].key]), 4)}`);
      }
    }

    back.addEventListener("click", () => { stopPlaying(); go(step - 1, true); });
    forward.addEventListener("click", () => { stopPlaying(); go(step + 1, true); });
    play.addEventListener("click", () => {
      if (timer) { stopPlaying(); say(`Paused at step ${step + 1}`); return; }
      if (step === STEPS.length - 1) go(0, false);
      play.textContent = "❚❚ Pause"; play.setAttribute("aria-pressed", "true");
      go(step, true);
      timer = setInterval(() => {
        if (step >= STEPS.length - 1 || !root.isConnected) { stopPlaying(); return; }
        go(step + 1, true);
      }, 1600);
    });
    select.addEventListener("change", () => { go(step, true); });

    function drawBars(v) {
      const { d } = state;
      const { ctx, width, height } = sizeCanvas(canvas);
      const colours = theme(root);
      const shown = Math.min(d, 64);
      const pad = { left: 40, right: 10, top: 8, bottom: 34 };
      const plotW = width - pad.left - pad.right, plotH = height - pad.top - pad.bottom;
      let limit = 1;
      for (const key of ["scaled", "encoding", "sum"]) for (let j = 0; j < shown; j++) limit = Math.max(limit, Math.abs(v[key][j]));
      limit = Math.ceil(limit);
      const Y = (x) => pad.top + ((limit - x) / (2 * limit)) * plotH;
      ctx.font = "11px sans-serif"; ctx.lineWidth = 1;
      for (const t of [-limit, 0, limit]) {
        ctx.strokeStyle = colours.grid;
        ctx.beginPath(); ctx.moveTo(pad.left, Y(t)); ctx.lineTo(pad.left + plotW, Y(t)); ctx.stroke();
        text(ctx, colours, String(t).replace("-", "−"), pad.left - 6, Y(t), "right", "middle");
      }
      const w = plotW / shown;
      const current = v[STEPS[step].key];
      const previous = step > 0 ? v[STEPS[step - 1].key] : null;
      for (let j = 0; j < shown; j++) {
        const x = pad.left + j * w;
        if (previous) {
          ctx.strokeStyle = colours.fg; ctx.setLineDash([2, 2]);
          ctx.strokeRect(x + w * 0.15, Math.min(Y(0), Y(previous[j])), w * 0.7, Math.abs(Y(previous[j]) - Y(0)));
          ctx.setLineDash([]);
        }
        ctx.fillStyle = colours.lines[step % colours.lines.length];
        ctx.fillRect(x + w * 0.2, Math.min(Y(0), Y(current[j])), w * 0.6, Math.max(1, Math.abs(Y(current[j]) - Y(0))));
      }
      ctx.strokeStyle = colours.fg;
      ctx.strokeRect(pad.left - 0.5, pad.top - 0.5, plotW + 1, plotH + 1);
      text(ctx, colours, `dimension →  (first ${shown} of ${d})`, pad.left + plotW / 2, height - 2, "center", "bottom");
      text(ctx, colours, "0", pad.left + w / 2, pad.top + plotH + 5, "center", "top");
      text(ctx, colours, String(shown - 1), pad.left + plotW - w / 2, pad.top + plotH + 5, "center", "top");
      canvas.setAttribute("aria-label",
        `Bar chart of step ${step + 1}, ${STEPS[step].title}, for "${SENTENCE[v.p]}" at position ${v.p}: the first ${shown} of ${d} dimensions, `
        + `on a scale from −${limit} to ${limit}; norm ${fixed(PE.norm(current), 4)}.`
        + (previous ? ` Dashed outlines show the previous step, ${STEPS[step - 1].title}.` : ""));
    }

    function update() {
      const { d } = state;
      const v = vectors();
      drawBars(v);
      stepLabel.textContent = `Step ${step + 1} of ${STEPS.length}, ${STEPS[step].title}: ${STEPS[step].note} (d = ${d}, √d = ${fixed(Math.sqrt(d), 4)}).`;
      back.disabled = step === 0;
      forward.disabled = step === STEPS.length - 1;
      const focused = list.contains(document.activeElement) ? document.activeElement.dataset.step : null;
      list.replaceChildren(...STEPS.map((s, k) => {
        const jump = el("button", { type: "button", class: "pe-button pe-step", "data-step": s.key }, [
          el("span", { class: "pe-step-title", text: `${k + 1}. ${s.title}` }),
          el("span", { text: " · norm " }),
          el("b", { "data-field": `norm-${s.key}`, text: fixed(PE.norm(v[s.key]), 4) }),
        ]);
        if (k === step) jump.setAttribute("aria-current", "step");
        jump.addEventListener("click", () => { stopPlaying(); go(k, true); });
        return el("li", {}, [jump]);
      }));
      if (focused) list.querySelector(`[data-step="${focused}"]`).focus();
      // On a narrow widget (a phone) each row is stacked: the dimension, then its
      // four values two by two, each with its column's name (data-label, see
      // playground.css), so no column hides off-screen. Explicit roles keep it
      // a table for screen readers whatever its display.
      const shown = Math.min(d, 16);
      const rows = [];
      for (let j = 0; j < shown; j++) {
        rows.push(el("tr", { role: "row", "data-dimension": String(j) }, [
          el("th", { scope: "row", role: "rowheader", "data-label": "dim", text: String(j) }),
          ...STEPS.map((s, k) => el("td", { role: "cell", "data-field": s.key, "data-label": s.short, class: k === step ? "pe-current" : "", text: fixed(v[s.key][j], 6) })),
        ]));
      }
      tableBox.replaceChildren(el("table", { class: "pe-table pe-stack", role: "table", "aria-labelledby": captionId }, [
        el("caption", { id: captionId, text: `"${SENTENCE[v.p]}" at position ${v.p}: the first ${shown} of ${d} dimensions` }),
        el("thead", { role: "rowgroup" }, [el("tr", { role: "row" }, [el("th", { scope: "col", role: "columnheader", text: "dim" }), ...STEPS.map((s, k) => el("th", { scope: "col", role: "columnheader", class: k === step ? "pe-current" : "", text: s.short }))])]),
        el("tbody", { role: "rowgroup" }, rows),
      ]));
    }
    return { draw: update };
  }

  // ------------------------------------------------------------------ rotation widget
  function rotationWidget(root, state, say) {
    const redraw = () => update();
    const p = control({ key: "p", name: "position p", kind: "int", min: 0, max: 1000, value: 3 }, redraw, say);
    const k = control({ key: "k", name: "offset k", kind: "int", min: -200, max: 200, value: 5 }, redraw, say);
    const pair = control({ key: "pair", name: "pair i", kind: "int", min: 0, max: state.d / 2 - 1, value: 1 }, redraw, say);
    const results = el("div", { "data-role": "rotation-results" });
    root.append(el("div", { class: "pe-controls" }, [p.node, k.node, pair.node]), results);

    function update() {
      const { d, base } = state;
      // A narrower d_model has fewer pairs: the box, the slider and the results
      // all move to the last pair there is.
      const i = pair.setLimits(0, d / 2 - 1);
      const turn = k.value * PE.frequency(i, d, base);
      const c = Math.cos(turn), s = Math.sin(turn);
      const start = [PE.value(p.value, 2 * i, d, base), PE.value(p.value, 2 * i + 1, d, base)];
      const rotated = [c * start[0] + s * start[1], -s * start[0] + c * start[1]];
      const target = [PE.value(p.value + k.value, 2 * i, d, base), PE.value(p.value + k.value, 2 * i + 1, d, base)];
      const field = (name, value) => el("b", { "data-field": name, text: value });
      results.replaceChildren(
        el("p", {}, [`d = ${d}: pair ${i} turns by k·ω = `, field("turn", fixed(turn, 6)), " rad"]),
        product(field, c, s, start, rotated, {}),
        el("p", {}, [`PE(${p.value + k.value}) pair ${i}: (`, field("target0", fixed(target[0], 6)), ", ",
          field("target1", fixed(target[1], 6)), ")"]),
      );
    }
    return { draw: update };
  }

  // ------------------------------------------------------------------ mounting
  function settings(root, state, redraw, withLength, say, onLength) {
    const row = el("div", { class: "pe-controls pe-settings" }, [
      control({ key: "d", ...LIMITS.d, value: state.d }, (v) => { state.d = v; redraw(); }, say).node,
      control({ key: "base", ...LIMITS.base, value: state.base }, (v) => { state.base = v; redraw(); }, say).node,
    ]);
    if (withLength) {
      row.append(control({ key: "length", ...LIMITS.length, value: state.length },
        (v) => { state.length = v; if (onLength) onLength(); redraw(); }, say).node);
    }
    root.prepend(row);
  }

  function section(root, title, intro) {
    // h2: the page's title is the h1 and its next heading an h2, so the
    // sections come in order for a screen reader (they look like h3s).
    const heading = el("h2", { id: newId("section"), text: title });
    const box = el("section", { class: "pe-section", "aria-labelledby": heading.id }, [heading]);
    if (intro) box.append(el("p", { class: "pe-hint", text: intro }));
    root.append(box);
    return box;
  }

  function mount(root) {
    if (root.classList.contains("pe-widget")) return; // mounted, or being mounted
    const kind = root.dataset.peWidget;
    if (!["playground", "table", "rotation"].includes(kind)) {
      root.dataset.mounted = "error"; // said, not left waiting (the tests wait for data-mounted)
      console.error(`data-pe-widget="${kind}" is not a widget: playground, table or rotation`);
      return;
    }
    root.classList.add("pe-widget");
    const state = { d: LIMITS.d.value, base: LIMITS.base.value, length: LIMITS.length.value, p: 5, q: 9 };
    const say = announcer(root);
    const parts = [];
    const redraw = () => parts.forEach((part) => part.draw());
    // Each step builds one part (the settings come with the first) and returns it.
    let steps;
    if (kind === "playground") {
      let table, wave, two;
      steps = [
        () => {
          table = heatmap(section(root, "The table",
            "Rows are positions, columns are dimensions. Hover, click, or focus the table and use the arrow keys, Page Up/Down, Home and End to read a cell."), state, say);
          settings(root, state, redraw, true, say, () => two && two.resize());
          return table;
        },
        () => (wave = waves(section(root, "The waves",
          "Each chosen dimension is drawn as a smooth curve of the position; the dots are the whole positions a model actually sees."), state, say)),
        () => (two = compare(section(root, "Two positions",
          "Choose any two positions p and q; they are marked in the table and the waves."), state, say, () => { table.draw(); wave.draw(); two.draw(); })),
        () => pipeline(section(root, "One token through the pipeline",
          "Step through what happens to one token before the first layer, or press Play. The embedding is a stand-in: random, with the usual initialisation (standard deviation 1/√d), the same every time for the same word."), state, say),
      ];
    } else if (kind === "table") {
      Object.assign(state, { d: 16, length: 24, p: undefined, q: undefined });
      steps = [() => {
        const table = heatmap(root, state, say);
        settings(root, state, redraw, true, say);
        return table;
      }];
    } else {
      state.d = 16;
      steps = [() => {
        const rotation = rotationWidget(root, state, say);
        settings(root, state, redraw, false, say);
        return rotation;
      }];
    }
    // A part is built in one task and drawn in the next, after the browser has
    // laid it out and shown it (a frame), together with the building of the
    // part after it. Built and drawn at once, the playground was one task of
    // about 300 ms on a 4x-throttled phone (Lighthouse's), nearly all of it
    // blocking time: each part laid the page out again as it read its canvas's
    // width (issue 41, tools/blocking.py). A change the reader makes redraws the
    // parts drawn so far at once; a part drawn later starts from the settings as
    // they are then. data-mounted marks the last part drawn ("error" if one
    // failed: the page's error is thrown). (In a tab that is
    // not shown there are no frames: the widget is drawn when it is shown.)
    let built = null;
    const next = () => {
      if (!root.isConnected) return;
      try {
        if (built) {
          built.draw();
          parts.push(built);
        }
        built = steps.length ? steps.shift()() : null;
      } catch (error) {
        root.dataset.mounted = "error"; // the page's error, not a widget that never finishes
        throw error;
      }
      if (built) requestAnimationFrame(() => setTimeout(next, 0));
      else root.dataset.mounted = "true";
    };
    setTimeout(next, 0);
    // Follow the palette switch, and the container's width (not its height,
    // which the redraw itself may change).
    // (Material's instant navigation replaces the page: a widget gone stops listening.)
    const observer = new MutationObserver(() => (root.isConnected ? redraw() : observer.disconnect()));
    observer.observe(document.body, { attributes: true, attributeFilter: ["data-md-color-scheme"] });
    // The width comes from a ResizeObserver, told it once the page is laid out:
    // read as the script starts, it made the browser style and lay out the page
    // then and there (the whole page, if the script came before its first layout).
    // The redraw waits for the next frame, out of the observer's own callback.
    let width = null;
    const sizes = new ResizeObserver((entries) => {
      if (!root.isConnected) return sizes.disconnect();
      const now = entries[entries.length - 1].contentRect.width;
      if (width !== null && now !== width) requestAnimationFrame(redraw);
      width = now;
    });
    sizes.observe(root);
  }

  function mountAll() {
    document.querySelectorAll("[data-pe-widget]").forEach(mount);
  }

  window.pePlayground = { PE, mountAll, check }; // for the console, and for the tests
  if (typeof document$ !== "undefined") document$.subscribe(mountAll);
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mountAll);
  else mountAll();
})();
