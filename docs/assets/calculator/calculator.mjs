// Loaded on every page, since Material's instant navigation can bring the calculator in at any
// time; the calculator's own code (wiring.mjs and engine.mjs, fetched side by side) loads only
// where the page has the calculator's form.
let loading = null;

function start() {
  if (!document.getElementById("guide-calc")) return;
  if (!loading) {
    loading = Promise.all([import("./wiring.mjs"), import("./engine.mjs")])
      .then(([wiring]) => wiring)
      .catch((err) => { loading = null; throw err; });
  }
  loading.then((wiring) => wiring.setup());
}

if (window.document$) window.document$.subscribe(start);
else document.addEventListener("DOMContentLoaded", start);
