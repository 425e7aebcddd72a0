// page.check / page.fillForm: whether a checkbox, radio or role=checkbox/switch is checked now.
// Arguments: spec, then element handles. Returns {ok: boolean} or {error}.
function (spec, ...handles) {
  const { elements, error } = globalThis.__textBrowser.find(spec, handles);
  if (error) return { error };
  const el = elements[0];
  if (!el) return { error: { kind: 'element_not_found', selector: spec.source } };
  if (el instanceof HTMLInputElement) return { ok: el.checked };
  return { ok: el.getAttribute('aria-checked') === 'true' };
}
