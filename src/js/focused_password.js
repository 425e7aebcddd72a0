// page.type: whether the element that has keyboard focus (inside shadow roots too) is a password
// field, so that what is typed there is kept out of every answer like a filled password.
// Returns {ok: true|false}.
function () {
  let el = document.activeElement;
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
  return { ok: el instanceof HTMLInputElement && el.type === 'password' };
}
