// The end of an action that started requests: asks the DOM watcher (dom_watch.js) to report the
// changes it holds now, so the action's effects include the render its last response caused.
// Returns {ok: true}.
function () {
  document.dispatchEvent(new Event('textbrowser:flush'));
  return { ok: true };
}
