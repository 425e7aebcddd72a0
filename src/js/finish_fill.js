// page.fill, last step when no look follows it (see lib.js `leaveField`; a typed fill's look at the
// next task does it in its own call, js/next_task.js). Arguments: value, setValue.
function (value, setValue) {
  return { ok: globalThis.__textBrowser.leaveField(value, setValue) };
}
