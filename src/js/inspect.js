// page.inspect: the facts about one element an agent would otherwise gather by hand — what it is,
// whether it is visible and enabled and why not, its value and form validity. Runs in the helper
// world. Arguments: spec (see lib.js query), then element handles for role and ref targets.
// An invisible element that still takes the pointer says so (catchesPointer, pointerArea); a cover
// is named with its box and whether it can be seen (coveredBy, as lib.js pointerTarget).
// Returns {ok: facts} or {error: {kind, …}}.
function (spec, ...handles) {
  const tb = globalThis.__textBrowser;
  const { elements, error } = tb.find(spec, handles);
  if (error) return { error };
  const el = elements[0];
  if (!el) return { error: { kind: 'element_not_found', selector: spec.source } };
  const clip = (s, n) => (s && s.length > n ? s.slice(0, n) + '…' : s);
  const facts = { element: tb.describe(el), tag: el.tagName.toLowerCase() };
  if (elements.length > 1) facts.matches = elements.length;

  // Attributes that explain behaviour; long values clipped.
  const KEY = new Set(['id', 'class', 'name', 'type', 'href', 'src', 'action', 'method', 'for', 'role', 'title',
    'placeholder', 'required', 'pattern', 'min', 'max', 'minlength', 'maxlength', 'step', 'disabled', 'readonly',
    'hidden', 'inert', 'tabindex', 'form', 'novalidate', 'formnovalidate', 'contenteditable', 'target', 'download']);
  const attributes = {};
  for (const a of el.attributes) {
    if (KEY.has(a.name) || a.name.startsWith('aria-') || a.name.startsWith('data-test')) {
      attributes[a.name] = clip(a.value, 120);
    }
  }
  if (Object.keys(attributes).length) facts.attributes = attributes;

  // The value, never a password's.
  const isPassword = el instanceof HTMLInputElement && el.type === 'password';
  if (el instanceof HTMLInputElement && (el.type === 'checkbox' || el.type === 'radio')) {
    facts.checked = el.checked;
  } else if (el instanceof HTMLSelectElement) {
    facts.value = el.multiple ? [...el.selectedOptions].map((o) => o.value) : el.value;
    facts.options = [...el.options].slice(0, 20).map((o) => (o.value === o.text.trim() ? o.value : o.value + ' (' + clip(o.text.trim(), 40) + ')'));
  } else if ('value' in el && (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement)) {
    facts.value = isPassword ? (el.value ? '•'.repeat(Math.min(el.value.length, 12)) + ' (' + el.value.length + ' characters, hidden)' : '') : clip(el.value, 300);
  }
  const text = tb.elementText(el);
  if (text && !(el instanceof HTMLInputElement) && !(el instanceof HTMLSelectElement)) facts.text = clip(text, 200);

  // Visible, or why not.
  const hiddenBy = () => {
    if (!el.isConnected) return 'it is not attached to the document';
    for (let n = el; n && n.nodeType === 1; n = n.parentElement || (n.getRootNode() && n.getRootNode().host)) {
      const style = getComputedStyle(n);
      const who = n === el ? 'itself' : tb.describe(n);
      if (style.display === 'none') return 'display:none on ' + who + (n.hidden ? ' (its hidden attribute)' : '');
      if (style.contentVisibility === 'hidden') return 'content-visibility:hidden on ' + who;
      if (parseFloat(style.opacity) === 0) return 'opacity:0 on ' + who;
    }
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || style.visibility === 'collapse') {
      let setter = el;
      for (let n = el.parentElement; n && getComputedStyle(n).visibility !== 'visible'; n = n.parentElement) setter = n;
      return 'visibility:' + style.visibility + (setter === el ? ' on itself' : ' (from ' + tb.describe(setter) + ')');
    }
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) return 'it has zero size (' + Math.round(r.width) + '×' + Math.round(r.height) + ')';
    const docW = document.documentElement.scrollWidth, docH = document.documentElement.scrollHeight;
    if (r.right + scrollX <= 0 || r.bottom + scrollY <= 0 || r.left + scrollX >= docW || r.top + scrollY >= docH) {
      return 'it is off-screen at (' + Math.round(r.left + scrollX) + ', ' + Math.round(r.top + scrollY) + ')';
    }
    return null;
  };
  const hidden = hiddenBy();
  facts.visible = !hidden;
  if (hidden) {
    facts.hiddenBecause = hidden;
    // Invisible is not inert: an element a user cannot see still takes every click over its box
    // unless pointer-events is none.
    const r = el.getBoundingClientRect();
    if (el.isConnected && /^opacity:0/.test(hidden) && r.width > 0 && r.height > 0 && getComputedStyle(el).pointerEvents !== 'none') {
      facts.catchesPointer = true;
      facts.pointerArea = tb.box(r);
    }
  } else {
    const r = el.getBoundingClientRect();
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    if (x >= 0 && y >= 0 && x < innerWidth && y < innerHeight) {
      let hit = document.elementFromPoint(x, y);
      while (hit && hit.shadowRoot) { const inner = hit.shadowRoot.elementFromPoint(x, y); if (!inner || inner === hit) break; hit = inner; }
      let inside = false;
      for (let n = hit; n; n = n.parentNode || n.host) if (n === el) { inside = true; break; }
      if (hit && !inside) facts.coveredBy = tb.pointerTarget(hit);
    } else {
      facts.inViewport = false;
    }
  }

  // Enabled, or why not.
  const disabledBy = () => {
    if ('disabled' in el && el.hasAttribute('disabled')) return 'its disabled attribute';
    const fieldset = el.closest('fieldset[disabled]');
    if (fieldset && 'disabled' in el && !fieldset.querySelector('legend')?.contains(el)) return 'inside ' + tb.describe(fieldset) + ', which is disabled';
    for (let n = el; n && n.nodeType === 1; n = n.parentElement) {
      if (n.getAttribute('aria-disabled') === 'true') return 'aria-disabled="true" on ' + (n === el ? 'itself' : tb.describe(n));
      if (n.hasAttribute('inert')) return 'inside ' + tb.describe(n) + ', which is inert';
    }
    if (getComputedStyle(el).pointerEvents === 'none') return 'pointer-events:none (clicks pass through it)';
    return null;
  };
  const disabled = disabledBy();
  facts.enabled = !disabled;
  if (disabled) facts.disabledBecause = disabled;
  if ('readOnly' in el && el.readOnly) facts.readOnly = true;

  // Form validity: its own, and, for a control in a form, what keeps the form from submitting.
  const failing = (v) => ['valueMissing', 'typeMismatch', 'patternMismatch', 'tooLong', 'tooShort', 'rangeUnderflow',
    'rangeOverflow', 'stepMismatch', 'badInput', 'customError'].filter((k) => v[k]);
  if (el.willValidate) {
    facts.validity = { valid: el.validity.valid };
    if (!el.validity.valid) {
      facts.validity.validationMessage = el.validationMessage;
      facts.validity.failing = failing(el.validity);
    }
  }
  const form = el.form || (el instanceof HTMLFormElement ? el : null);
  if (form) {
    const invalid = [...form.elements].filter((f) => f.willValidate && !f.validity.valid);
    facts.form = { element: tb.describe(form), noValidate: form.noValidate, valid: invalid.length === 0 };
    if (invalid.length) {
      facts.form.invalidFields = invalid.slice(0, 5).map((f) => tb.describe(f) + ': ' + f.validationMessage + ' (' + failing(f.validity).join(', ') + ')');
    }
  }
  if (document.activeElement === el) facts.focused = true;

  // How the DOM watcher names it and its ancestors (its changes in the timeline), and what it
  // looks like (an element it replaced, detached since, is found by the same tag and id).
  facts.watch = tb.watchNames(el, 8);
  facts.looks = { tag: el.localName, id: el.id || '', cls: el.getAttribute('class') || '', text: String(el.textContent || '').replace(/\s+/g, ' ').trim().slice(0, 60), name: tb.describe(el) };
  return { ok: facts };
}
