// storage.local / storage.session / storage.state: reads, and optionally clears and writes, the
// current document's localStorage or sessionStorage. Runs in the helper world (same origin, same
// storage as the page). Arguments: which ('local' | 'session'), clear (bool), set ({name: value}).
// Returns {ok: {origin, items: [{name, value}]}} or {error} when the document has no storage.
function (which, clear, set) {
  let store;
  try {
    store = which === 'session' ? window.sessionStorage : window.localStorage;
  } catch (e) {
    return { error: { kind: 'not_actionable', selector: 'document', message: 'has no ' + which + 'Storage: ' + e.message } };
  }
  if (!store) return { error: { kind: 'not_actionable', selector: 'document', message: 'has no ' + which + 'Storage' } };
  if (clear) store.clear();
  for (const [name, value] of Object.entries(set || {})) store.setItem(name, value);
  const items = [];
  for (let i = 0; i < store.length; i += 1) {
    const name = store.key(i);
    items.push({ name, value: store.getItem(name) });
  }
  return { ok: { origin: location.origin, items } };
}
