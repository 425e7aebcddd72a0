// page.fill, last step: the text was typed into the focused element (input events fired);
// a user leaving the field would fire `change`, so fire it. For inputs that take a value
// rather than typing (date, color, range …) set it here. Arguments: value, setValue.
function (value, setValue) {
  let el = document.activeElement;
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
  if (!el) return { ok: false };
  if (setValue) {
    const proto = Object.getPrototypeOf(el);
    const setter = Object.getOwnPropertyDescriptor(proto, 'value')?.set;
    if (setter) setter.call(el, value); else el.value = value;
    el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  }
  el.dispatchEvent(new Event('change', { bubbles: true }));
  return { ok: true };
}
