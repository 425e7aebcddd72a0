// page.type: the value of the element that has keyboard focus (inside shadow roots too) when it
// is a password field, so that what is typed there is kept out of every answer like a filled
// password (asked again after typing: pieces typed in several calls are remembered joined).
// Returns {ok: value} or {ok: null} when the focused element is no password field.
function () {
  let el = document.activeElement;
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
  return { ok: el instanceof HTMLInputElement && el.type === 'password' ? el.value : null };
}
