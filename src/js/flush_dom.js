// The end of an action that started requests (and a look at the timeline or a load): takes the DOM
// watcher's report of the changes it holds now (lib.js `domReport`), so the answer includes the
// render the last response caused.
// Arguments: since (ms since the Unix epoch: when the action began, or null), by (ms since the Unix
// epoch: when the service stops waiting for the answer).
// Returns {ok: {busy, report}}: for an action, whether the element it touched shows a sign of work in
// progress it did not show before (see lib.js `busy`), null otherwise; the watcher's report (JSON),
// or null.
function (since, by) {
  const tb = globalThis.__textBrowser;
  return { ok: { busy: typeof since === 'number' ? tb.busy(since) : null, report: tb.domReport(by) } };
}
