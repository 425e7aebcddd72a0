// The end of an action that started requests, a look at the timeline, or a navigation's arrival:
// takes the DOM watcher's report of the changes it holds now (lib.js `domReport`), so the answer
// includes the render the last response caused, and says where the page is.
// Arguments: since (ms since the Unix epoch: when the action began, or null), by (ms since the Unix
// epoch: when the service stops waiting for the answer).
// Returns {ok: {busy, report, url, title, refresh, scroll}}: for an action, whether the element it
// touched shows a sign of work in progress it did not show before (see lib.js `busy`), null
// otherwise; the watcher's report (JSON), or null; the document's URL and title; whether a
// <meta http-equiv="refresh"> sends the page on within a second (a redirect, to Chromium); where
// the document is scrolled to, [x, y] in CSS pixels (after a reload, where the browser restored it).
function (since, by) {
  const tb = globalThis.__textBrowser;
  const busy = typeof since === 'number' ? tb.busy(since) : null;
  const meta = document.querySelector('meta[http-equiv="refresh" i]');
  const delay = meta ? Number.parseFloat(meta.getAttribute('content') || '') : NaN;
  const refresh = delay >= 0 && delay <= 1;
  const scroll = [Math.round(scrollX), Math.round(scrollY)];
  return { ok: { busy, report: tb.domReport(by), url: location.href, title: document.title, refresh, scroll } };
}
