// MathJax settings for the site. The MathJax bundle itself is served from this
// site (assets/mathjax/, copied from a PyPI package at build time), never from
// a CDN. Only the spans and divs written by pymdownx.arithmatex are typeset.
// startup.js loads the components named here: what tex-chtml.js bundles, less
// its context menu (420 kB), with the hidden MathML that screen readers read.
window.MathJax = {
  loader: {
    load: ["core", "input/tex", "output/chtml", "a11y/assistive-mml"],
  },
  tex: {
    inlineMath: [["\\(", "\\)"]],
    displayMath: [["\\[", "\\]"]],
    processEscapes: true,
    processEnvironments: true,
    tags: "none",
  },
  options: {
    ignoreHtmlClass: ".*|",
    processHtmlClass: "arithmatex",
  },
};

// With instant navigation the page body is swapped without a reload, so
// typeset again after every swap (the first page is typeset at startup). The
// output cache is kept: clearing it drops the glyph styles MathJax 3.2 has
// already written, and the new page's math would render blank.
if (typeof document$ !== "undefined") {
  document$.subscribe(function () {
    var mj = window.MathJax;
    if (!mj || !mj.startup || !mj.startup.promise || !mj.typesetPromise) {
      return;
    }
    mj.startup.promise = mj.startup.promise.then(function () {
      mj.typesetClear();
      mj.texReset();
      return mj.typesetPromise();
    });
  });
}
