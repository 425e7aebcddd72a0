// page.select / page.fillForm: chooses the options of a <select> whose value or visible label is
// one of `wanted` (exact, then case-insensitive), as a user picking them would: `input` and
// `change` fire. Arguments: spec, wanted (array of strings), then element handles.
// Returns {ok: [chosen values]} or {error: {kind, selector, message}}.
function (spec, wanted, ...handles) {
  const tb = globalThis.__textBrowser;
  const { elements, error } = tb.find(spec, handles);
  if (error) return { error };
  const el = elements[0];
  if (!(el instanceof HTMLSelectElement)) {
    return { error: { kind: 'not_actionable', selector: spec.source, message: 'is not a <select> (it is ' + tb.describe(el) + ')' } };
  }
  if (wanted.length > 1 && !el.multiple) {
    return { error: { kind: 'not_actionable', selector: spec.source, message: 'takes one option, not ' + wanted.length } };
  }
  const options = [...el.options];
  const label = (o) => o.label.trim() || o.text.trim();
  const chosen = [];
  for (const want of wanted) {
    const option = options.find((o) => o.value === want) || options.find((o) => label(o) === want) ||
      options.find((o) => label(o).toLowerCase() === String(want).toLowerCase());
    if (!option) {
      const known = options.slice(0, 15).map((o) => (o.value === label(o) ? JSON.stringify(o.value) : JSON.stringify(o.value) + ' (' + label(o) + ')'));
      return { error: { kind: 'not_actionable', selector: spec.source,
        message: 'has no option with value or label ' + JSON.stringify(want) + '; options: ' + known.join(', ') + (options.length > 15 ? ', …' : '') } };
    }
    if (option.disabled) {
      return { error: { kind: 'not_actionable', selector: spec.source, message: 'has option ' + JSON.stringify(want) + ' disabled' } };
    }
    chosen.push(option);
  }
  for (const o of options) o.selected = chosen.includes(o);
  el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  el.dispatchEvent(new Event('change', { bubbles: true }));
  return { ok: chosen.map((o) => o.value) };
}
