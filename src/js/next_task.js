// Actions: resolves once the page has run the tasks already queued (a click handler's fetch starts
// on a task of its own), so what the action started has been reported when the service looks.
// Returns {ok: true}.
async function () {
  await new Promise((resolve) => setTimeout(resolve, 0));
  return { ok: true };
}
