// Arms a breakpoint on the page's Web Storage calls in each new document, before any of the page's
// scripts run: the DevTools command-line API's debug(), which this script (evaluated with
// includeCommandLineAPI in the page's own world) can reach and the page cannot (`typeof debug` is
// "undefined" there). Each call then pauses with its caller's frame on top; the service reads the
// caller's line and the key and resumes at once (watch/pauses). Property syntax (localStorage.k)
// calls no function: it cannot be seen this way.
(() => {
  try {
    const storage = Storage.prototype;
    debug(storage.getItem);
    debug(storage.setItem);
    debug(storage.removeItem);
    debug(storage.clear);
  } catch (e) {
    // A document without Web Storage (an opaque origin): nothing to follow.
  }
})();
