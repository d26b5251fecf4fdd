// Loaded on every page, since Material's instant navigation can bring the calculator in at any
// time; the calculator's own code (wiring.mjs and engine.mjs, fetched side by side) loads only
// where the page has the calculator's form. Leaving that page undoes what its visit set up.
let loading = null;
let loaded = null;

function failed(root, err) {
  // The page's own text says the calculator needs JavaScript; here JavaScript runs, so say what did happen.
  // This one sentence is written here rather than in wording.mjs: importing that module here would
  // fetch it (and format.mjs) on every page, and the import that failed may have been wording.mjs's.
  const out = document.getElementById("calc-output");
  root.setAttribute("data-state", "failed");
  if (out) {
    out.replaceChildren();
    const p = document.createElement("p");
    p.className = "guide-calc__invalid";
    p.textContent = "The calculator could not load, so there is no answer here. Reload the page to try again; " +
      "every scenario page shows the same computation for a fixed case.";
    out.appendChild(p);
  }
  console.warn("calculator:", err);
}

function start() {
  const root = document.getElementById("guide-calc");
  if (!root) {
    if (loaded) loaded.teardown();
    return;
  }
  if (!loading) {
    loading = Promise.all([import("./wiring.mjs"), import("./engine.mjs")])
      .then(([wiring]) => (loaded = wiring))
      .catch((err) => { loading = null; throw err; });
  }
  loading.then((wiring) => wiring.setup()).catch((err) => failed(root, err));
}

if (window.document$) window.document$.subscribe(start);
else document.addEventListener("DOMContentLoaded", start);
