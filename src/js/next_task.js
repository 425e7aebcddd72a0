// Actions: resolves once the page has run the tasks already queued (a click handler's fetch starts
// on a task of its own), so what the action started has been reported when the service looks; then
// takes the DOM watcher's report of the changes it holds now rather than at the end of its window
// (lib.js `domReport`). A typed fill's `change` event (lib.js `leaveField`) is fired first, in
// this same call, so the fill pays no round trip for it.
// Arguments: since (ms since the Unix epoch: when the action began), by (ms since the Unix epoch:
// when the service stops waiting for the answer), change (fire the focused field's change first).
// Returns {ok: {busy, report}}: whether the element the action touched shows a sign of work in
// progress it did not show before (see lib.js `busy`), or null; the watcher's report (JSON), or null.
async function (since, by, change) {
  const tb = globalThis.__textBrowser;
  if (change === true) tb.leaveField(null, false);
  await new Promise((resolve) => setTimeout(resolve, 0));
  return { ok: { busy: tb.busy(since), report: tb.domReport(by) } };
}
