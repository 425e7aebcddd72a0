// Actions: resolves once the page has run the tasks already queued (a click handler's fetch starts
// on a task of its own), so what the action started has been reported when the service looks; then
// asks the DOM watcher (dom_watch.js, another isolated world sharing this DOM) to report the changes
// it holds now rather than at the end of its window.
// Arguments: since (ms since the Unix epoch: when the action began).
// Returns {ok: {busy}}: whether the element the action touched shows a sign of work in progress it
// did not show before (see lib.js `busy`), or null.
async function (since) {
  await new Promise((resolve) => setTimeout(resolve, 0));
  document.dispatchEvent(new Event('textbrowser:flush'));
  return { ok: { busy: globalThis.__textBrowser.busy(since) } };
}
