// Actions: resolves once the page has run the tasks already queued (a click handler's fetch starts
// on a task of its own), so what the action started has been reported when the service looks; then
// asks the DOM watcher (dom_watch.js, another isolated world sharing this DOM) to report the changes
// it holds now rather than at the end of its window.
// Returns {ok: true}.
async function () {
  await new Promise((resolve) => setTimeout(resolve, 0));
  document.dispatchEvent(new Event('textbrowser:flush'));
  return { ok: true };
}
