// Run Material's own search worker under node, as a browser runs it, and print
// the pages each query returns, best first.
//
//   node tests/search_worker.cjs WORKER_JS SEARCH_INDEX_JSON QUERY...
//
// WORKER_JS is the theme's workers/search.*.min.js (lunr and Material's query
// handling in one file); SEARCH_INDEX_JSON a build's search/search_index.json.
// The worker is loaded into a fresh context that gives it what a web worker
// has (self, addEventListener, postMessage, importScripts); the messages are
// the ones the theme's page sends: SETUP with the index (config, docs and the
// options), then one QUERY per query. Printed: one JSON object, each query
// mapped to the list of page addresses of its result groups, in the order
// the search dialog lists them (a group is a page with its matching sections).
"use strict";

const fs = require("fs");
const vm = require("vm");

const SETUP = 0;
const QUERY = 2;

async function main() {
  const [workerPath, indexPath, ...queries] = process.argv.slice(2);
  const listeners = [];
  let answer = null;
  const context = {
    console,
    setTimeout,
    clearTimeout,
    addEventListener: (type, listener) => {
      if (type === "message") listeners.push(listener);
    },
    postMessage: (message) => answer(message),
    importScripts: () => {
      throw new Error("the index asks for another language's scripts");
    },
  };
  context.self = context;
  vm.createContext(context);
  vm.runInContext(fs.readFileSync(workerPath, "utf8"), context, { filename: workerPath });

  const send = (message) =>
    new Promise((resolve) => {
      answer = resolve;
      for (const listener of listeners) listener({ data: message });
    });

  const index = JSON.parse(fs.readFileSync(indexPath, "utf8"));
  await send({
    type: SETUP,
    data: { config: index.config, docs: index.docs, options: { suggest: false } },
  });
  const results = {};
  for (const query of queries) {
    const reply = await send({ type: QUERY, data: query });
    results[query] = reply.data.items.map((group) => group[0].location.split("#")[0]);
  }
  process.stdout.write(JSON.stringify(results));
}

main().catch((error) => {
  process.stderr.write(String(error && error.stack ? error.stack : error) + "\n");
  process.exit(1);
});
