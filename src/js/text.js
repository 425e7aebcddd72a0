// page.text: the visible text of the first element matching a CSS selector, with innerText
// semantics (display:none and visibility:hidden content excluded). Runs in the helper world.
// Returns {ok: text} or {error: {kind, selector, message}}.
function (selector) {
  let element;
  try {
    element = document.querySelector(selector);
  } catch (e) {
    return { error: { kind: 'invalid_selector', selector, message: String(e && e.message) } };
  }
  if (!element) {
    return { error: { kind: 'element_not_found', selector } };
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
