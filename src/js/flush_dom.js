// The end of an action that started requests (and a look at the timeline or a load): asks the DOM
// watcher (dom_watch.js) to report the changes it holds now, so the answer includes the render the
// last response caused.
// Arguments: since (optional, ms since the Unix epoch: when the action began).
// Returns {ok: {busy}}: for an action, whether the element it touched shows a sign of work in
// progress it did not show before (see lib.js `busy`); null otherwise.
function (since) {
  document.dispatchEvent(new Event('textbrowser:flush'));
  return { ok: { busy: typeof since === 'number' ? globalThis.__textBrowser.busy(since) : null } };
}
