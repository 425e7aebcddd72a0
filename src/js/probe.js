// Finds the element for an action and reports whether it can be acted on now.
// Arguments: spec (see lib.js query), action (a name in lib.js ACTIONS), scroll (bring the element
// into view first; false: take it where it is), then element handles for role and ref targets.
// Returns {ok: {x, y, approach?, watch, …}} when ready (`watch`: how the DOM watcher names the element
// and its ancestors), {ok: {wait: reason, missing?}} to try again (`missing`: nothing matches yet), or
// {error: {kind, …}} when waiting cannot help — `element_covered` (naming what a user would hit)
// and `element_outside_viewport` without scrolling.
async function (spec, action, scroll, ...handles) {
  const tb = globalThis.__textBrowser;
  const rule = tb.rules(action);
  if (!rule) return { error: { kind: 'unknown_action', message: 'the page scripts know no action ' + JSON.stringify(action) } };
  const { elements: found, error } = tb.find(spec, handles);
  if (error) return { error };
  if (found.length === 0) return { ok: { wait: 'matches no element', missing: true } };
  if (found.length > 1 && !rule.anyMatch) {
    return { error: { kind: 'ambiguous_selector', selector: spec.source, count: found.length,
      candidates: found.slice(0, 5).map(tb.describe) } };
  }
  const el = found[0];
  const state = await tb.actionable(el, rule, scroll);
  if (state.fatal) return { error: { kind: 'not_actionable', selector: spec.source, message: state.fatal } };
  if (state.covered) return { error: { kind: 'element_covered', selector: spec.source, cover: state.covered } };
  if (state.outside) return { error: { kind: 'element_outside_viewport', selector: spec.source, message: state.outside } };
  if (state.wait) return { ok: state };
  if (rule.editable && el instanceof HTMLInputElement && el.type === 'password') state.password = true;
  if (rule.focus) {
    el.focus({ preventScroll: !scroll });
    if (rule.editable) {
      if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) {
        if (tb.VALUE_INPUTS.has(el.type)) {
          tb.touch(el);
          return { ok: Object.assign(state, { setValue: true, watch: tb.watchNames(el, 8) }) };
        }
        el.select();
      } else {
        const range = document.createRange();
        range.selectNodeContents(el);
        const selection = window.getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
      }
    }
    // Inside a shadow root, the document's active element is the host; the root knows better.
    const focused = el.getRootNode().activeElement;
    if (focused !== el && !el.contains(focused) && !(el.shadowRoot && el.shadowRoot.activeElement)) {
      return { ok: { wait: 'cannot take keyboard focus' } };
    }
  }
  tb.touch(el);
  state.watch = tb.watchNames(el, 8);
  return { ok: state };
}
