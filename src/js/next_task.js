// Actions: resolves once the page has run the tasks already queued (a click handler's fetch starts
// on a task of its own), so what the action started has been reported when the service looks; then
// takes the DOM watcher's report of the changes it holds now rather than at the end of its window
// (lib.js `domReport`).
// Arguments: since (ms since the Unix epoch: when the action began), by (ms since the Unix epoch:
// when the service stops waiting for the answer).
// Returns {ok: {busy, report, late}}: whether the element the action touched shows a sign of work
// in progress it did not show before (see lib.js `busy`), or null; the watcher's report (JSON) or
// null, and whether it went through the binding instead (`late`).
async function (since, by) {
  await new Promise((resolve) => setTimeout(resolve, 0));
  const tb = globalThis.__textBrowser;
  const { report, late } = tb.domReport(by);
  return { ok: { busy: tb.busy(since), report, late } };
}
