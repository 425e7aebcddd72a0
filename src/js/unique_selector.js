// find.byRole: a CSS selector that matches exactly the given element (the first handle).
// Arguments: the role target's spec (unused: the service resolved the role), then the element
// handles of the role query. Returns {ok: {selector, count}}.
function (spec, ...handles) {
  const el = handles.find((h) => h && h.nodeType === 1);
  if (!el) return { error: { kind: 'element_not_found', selector: 'the role query' } };
  const esc = (s) => CSS.escape(s);
  const unique = (sel, root) => {
    try { return root.querySelectorAll(sel).length === 1; } catch (e) { return false; }
  };
  const root = el.getRootNode();
  if (el.id && unique('#' + esc(el.id), root)) return { ok: { selector: '#' + esc(el.id), count: handles.length } };
  const testId = el.getAttribute('data-testid');
  if (testId && unique('[data-testid="' + testId.replace(/"/g, '\\"') + '"]', root)) {
    return { ok: { selector: '[data-testid="' + testId.replace(/"/g, '\\"') + '"]', count: handles.length } };
  }
  const parts = [];
  for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
    if (node.id && unique('#' + esc(node.id), root)) { parts.unshift('#' + esc(node.id)); break; }
    let part = node.tagName.toLowerCase();
    const parent = node.parentElement;
    if (parent) {
      const same = [...parent.children].filter((c) => c.tagName === node.tagName);
      if (same.length > 1) part += ':nth-of-type(' + (same.indexOf(node) + 1) + ')';
    }
    parts.unshift(part);
    if (unique(parts.join(' > '), root)) break;
  }
  return { ok: { selector: parts.join(' > '), count: handles.length } };
}
