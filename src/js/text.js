// page.text: the visible text of the first element matching the selector, with innerText
// semantics (display:none and visibility:hidden content excluded). Runs in the helper world.
// Arguments: spec (see lib.js query), then element handles for role selectors.
// Returns {ok: text} or {error: {kind, selector, message}}.
function (spec, ...handles) {
  const { elements, error } = globalThis.__textBrowser.find(spec, handles);
  if (error) return { error };
  const element = elements[0];
  if (!element) {
    return { error: { kind: 'element_not_found', selector: spec.source } };
  }
  // innerText of an element that is not rendered falls back to textContent; a hidden element
  // shows no text to a user, so it has none here either.
  const rendered = typeof element.checkVisibility !== 'function' ||
    element.checkVisibility({ visibilityProperty: true }) || element === document.body;
  if (!rendered) {
    return { ok: '' };
  }
  const text = typeof element.innerText === 'string' ? element.innerText : element.textContent;
  return { ok: text || '' };
}
