// page.fillForm: what kind of field an element is, so the service knows how to set it.
// Arguments: spec (see lib.js query), then element handles for role and ref targets.
// Returns {ok: {kind: text|select|checkbox|radio|other, multiple, checked}} or {error}.
function (spec, ...handles) {
  const { elements, error } = globalThis.__textBrowser.find(spec, handles);
  if (error) return { error };
  const el = elements[0];
  if (!el) return { error: { kind: 'element_not_found', selector: spec.source } };
  if (elements.length > 1) {
    return { error: { kind: 'ambiguous_selector', selector: spec.source, count: elements.length,
      candidates: elements.slice(0, 5).map(globalThis.__textBrowser.describe) } };
  }
  if (el instanceof HTMLSelectElement) return { ok: { kind: 'select', multiple: el.multiple } };
  if (el instanceof HTMLInputElement && (el.type === 'checkbox' || el.type === 'radio')) {
    return { ok: { kind: el.type, checked: el.checked } };
  }
  if (el.getAttribute('role') === 'checkbox' || el.getAttribute('role') === 'switch') {
    return { ok: { kind: 'checkbox', checked: el.getAttribute('aria-checked') === 'true' } };
  }
  return { ok: { kind: 'text' } };
}
