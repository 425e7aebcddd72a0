// session.create storageState: writes localStorage items for the current (blank) document's
// origin. `items` is [{name, value}]. Runs in the helper world; returns {ok: count}.
function (items) {
  for (const item of items) {
    window.localStorage.setItem(item.name, item.value);
  }
  return { ok: items.length };
}
