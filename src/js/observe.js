// assert.*: what the page shows now, for the service to compare with what was expected.
// Arguments: spec (see lib.js query), then element handles for role and ref targets.
// Returns {ok: {count, visible, texts, values, passwords, checked}}: how many elements match, how
// many of them are visible, and of the first few matches their visible text, value, whether they
// are password fields (whose value the service compares but never shows) and checked state.
function (spec, ...handles) {
  const tb = globalThis.__textBrowser;
  const { elements, error } = tb.find(spec, handles);
  if (error) return { error };
  const first = elements.slice(0, 5);
  const shown = (el) => tb.isVisible(el) || el === document.body;
  const value = (el) => ('value' in el && typeof el.value === 'string' ? el.value : null);
  const checked = (el) => (el instanceof HTMLInputElement ? el.checked : el.getAttribute('aria-checked') === 'true');
  return {
    ok: {
      count: elements.length,
      visible: elements.filter(shown).length,
      texts: first.map((el) => (shown(el) ? tb.elementText(el) : '')),
      values: first.map(value),
      passwords: first.map((el) => el instanceof HTMLInputElement && el.type === 'password'),
      checked: first.map(checked),
    },
  };
}
