// The helper library, installed once per document in text-browser's isolated world as
// globalThis.__textBrowser: in a top document with the DOM watcher's script, from its first moment
// (watch/dom.rs, which puts it behind an `if` for top documents: it stays one statement); elsewhere
// by the service on first use. Operation scripts (text.js, probe.js …) call into it.
// The isolated world shares the DOM with the page but not its globals, so page scripts cannot
// tamper with anything used here.
(() => {
  if (globalThis.__textBrowser) return;

  // Every element under `root`, descending into open shadow roots.
  function* allElements(root) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
    let node = walker.currentNode;
    while (node) {
      if (node.nodeType === 1) {
        yield node;
        if (node.shadowRoot) yield* allElements(node.shadowRoot);
      }
      node = walker.nextNode();
    }
  }

  // CSS, piercing open shadow roots; document order; no duplicates.
  function queryCss(css) {
    const found = [];
    const roots = [document];
    for (const el of allElements(document)) if (el.shadowRoot) roots.push(el.shadowRoot);
    for (const root of roots) for (const el of root.querySelectorAll(css)) found.push(el);
    return found;
  }

  const collapse = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const SKIP_TEXT = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'TITLE']);

  function elementText(el) {
    if (el instanceof HTMLInputElement && (el.type === 'button' || el.type === 'submit' || el.type === 'reset')) {
      return collapse(el.value);
    }
    return collapse(el.innerText !== undefined ? el.innerText : el.textContent);
  }

  // Elements whose text matches, innermost only (a match whose child also matches is left out).
  function queryText(text, exact) {
    const want = exact ? collapse(text) : collapse(text).toLowerCase();
    const matches = (el) => {
      const have = elementText(el);
      return exact ? have === want : have.toLowerCase().includes(want);
    };
    const found = [];
    for (const el of allElements(document.body || document.documentElement)) {
      if (SKIP_TEXT.has(el.tagName) || !matches(el)) continue;
      const children = el.shadowRoot ? [...el.children, ...el.shadowRoot.children] : [...el.children];
      if (!children.some((c) => !SKIP_TEXT.has(c.tagName) && matches(c))) found.push(el);
    }
    return found;
  }

  function queryXPath(xpath) {
    const result = document.evaluate(xpath, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
    const found = [];
    for (let i = 0; i < result.snapshotLength; i++) {
      const node = result.snapshotItem(i);
      if (node && node.nodeType === 1) found.push(node);
    }
    return found;
  }

  // spec: {kind: css|text|xpath|handles, value, exact}; handles: elements resolved by the service.
  // Throws {invalidSelector: message} for syntax errors.
  function query(spec, handles) {
    try {
      switch (spec.kind) {
        case 'css': return queryCss(spec.value);
        case 'text': return queryText(spec.value, spec.exact);
        case 'xpath': return queryXPath(spec.value);
        case 'handles': return handles.filter((h) => h && h.nodeType === 1);
      }
    } catch (e) {
      throw { invalidSelector: String(e && e.message) };
    }
    throw { invalidSelector: 'unknown selector kind ' + spec.kind };
  }

  // query() for operation scripts: {elements} or {error} in the shape helpers answer with.
  function find(spec, handles) {
    try {
      return { elements: query(spec, handles) };
    } catch (e) {
      return { error: { kind: 'invalid_selector', selector: spec.source, message: e.invalidSelector || String(e) } };
    }
  }

  const CONTAINERS = new Set(['HTML', 'BODY', 'MAIN', 'FORM', 'SECTION', 'ARTICLE', 'NAV', 'ASIDE', 'HEADER',
    'FOOTER', 'UL', 'OL', 'TABLE', 'TBODY', 'THEAD', 'SELECT', 'FIELDSET']);

  // A short human description: tag#id.class "text".
  function describe(el) {
    if (!el || el.nodeType !== 1) return String(el);
    let d = el.tagName.toLowerCase();
    if (el.id) d += '#' + el.id;
    const classes = typeof el.className === 'string' ? el.className.trim().split(/\s+/).filter(Boolean) : [];
    if (classes.length) d += '.' + classes.slice(0, 3).join('.');
    // Containers are named by their id and class; their text is everything inside them.
    const label = el.getAttribute('aria-label') || (CONTAINERS.has(el.tagName) ? '' : elementText(el));
    if (label) d += ' "' + (label.length > 40 ? label.slice(0, 40) + '…' : label) + '"';
    return d;
  }

  const nextFrame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));

  function isVisible(el) {
    if (!el.isConnected) return false;
    if (typeof el.checkVisibility === 'function' && !el.checkVisibility({ visibilityProperty: true })) return false;
    const rect = el.getBoundingClientRect();
    return rect.width > 0 && rect.height > 0;
  }

  function isDisabled(el) {
    if (el.getAttribute('aria-disabled') === 'true') return true;
    if (!('disabled' in el)) return false;
    if (el.disabled) return true;
    const fieldset = el.closest('fieldset[disabled]');
    return !!fieldset && !fieldset.querySelector('legend')?.contains(el);
  }

  const TEXT_INPUTS = new Set(['', 'text', 'search', 'email', 'password', 'tel', 'url', 'number']);
  const VALUE_INPUTS = new Set(['date', 'time', 'datetime-local', 'month', 'week', 'color', 'range']);

  function editableProblem(el) {
    if (el instanceof HTMLTextAreaElement) return el.readOnly ? 'is read-only' : null;
    if (el instanceof HTMLInputElement) {
      const type = (el.getAttribute('type') || '').toLowerCase();
      if (!TEXT_INPUTS.has(type) && !VALUE_INPUTS.has(type)) {
        return 'is an <input type=' + type + '>, which cannot be filled; click it instead';
      }
      return el.readOnly ? 'is read-only' : null;
    }
    if (el.isContentEditable) return null;
    return 'is not an input, textarea or contenteditable element';
  }

  // The deepest element at a viewport point, looking into open shadow roots.
  function hitAt(x, y) {
    let hit = document.elementFromPoint(x, y);
    while (hit && hit.shadowRoot) {
      const inner = hit.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    return hit;
  }

  function contains(ancestor, node) {
    for (let n = node; n; n = n.parentNode || n.host) if (n === ancestor) return true;
    return false;
  }

  // Properties whose animation moves or resizes an element.
  const GEOMETRY = /^(left|top|right|bottom|inset|transform|translate|scale|rotate|width|height|margin|padding|offset|zoom)/;

  // Whether a CSS animation or transition that moves or resizes `el` (on it or an ancestor) is
  // running or about to start: one that has not produced its first frame yet leaves the box where
  // it was, so comparing boxes across a frame alone would miss it.
  function movingByAnimation(el) {
    if (typeof document.getAnimations !== 'function') return false;
    for (const animation of document.getAnimations()) {
      if (animation.playState !== 'running' && !animation.pending) continue;
      const target = animation.effect && animation.effect.target;
      if (!target || !contains(target, el)) continue;
      const frames = typeof animation.effect.getKeyframes === 'function' ? animation.effect.getKeyframes() : [];
      const property = animation.transitionProperty;
      if (property ? GEOMETRY.test(property) : frames.some((f) => Object.keys(f).some((k) => GEOMETRY.test(k)))) {
        return true;
      }
    }
    return false;
  }

  // Whether a script may be moving `el`: it or an ancestor has an inline style that sets its
  // geometry or a custom property. Script-driven motion (framer-motion, GSAP, react-spring, jQuery
  // animate) works by writing inline styles on every frame; a page's static layout rarely does.
  const INLINE_MOTION = /(^|;)\s*(left|top|right|bottom|inset|transform|translate|scale|rotate|width|height|margin|zoom|--)/i;
  function styledByScript(el) {
    for (let n = el; n && n.nodeType === 1; n = n.parentNode || n.host) {
      const style = n.getAttribute('style');
      if (style && INLINE_MOTION.test(style)) return true;
    }
    return false;
  }

  // A box in viewport pixels, rounded.
  const box = (r) => ({ x: Math.round(r.x), y: Math.round(r.y), width: Math.round(r.width), height: Math.round(r.height) });

  const inViewport = (x, y) => x >= 0 && y >= 0 && x < innerWidth && y < innerHeight;

  // Why an element a pointer hits cannot be seen: opacity 0 on it or an ancestor, or nothing of its
  // own painted (no background, border, shadow or text). Null when it can be seen.
  function invisibleBecause(el) {
    for (let n = el; n && n.nodeType === 1; n = n.parentElement || (n.getRootNode() && n.getRootNode().host)) {
      if (parseFloat(getComputedStyle(n).opacity) === 0) return 'opacity 0' + (n === el ? '' : ' on ' + describe(n));
    }
    const style = getComputedStyle(el);
    const clear = (color) => color === 'transparent' || /rgba\(.*,\s*0\)$/.test(color);
    const bordered = ['Top', 'Right', 'Bottom', 'Left'].some((side) =>
      parseFloat(style['border' + side + 'Width']) > 0 && style['border' + side + 'Style'] !== 'none' && !clear(style['border' + side + 'Color']));
    const ownText = [...el.childNodes].some((n) => n.nodeType === 3 && n.data.trim());
    const painted = !clear(style.backgroundColor) || style.backgroundImage !== 'none' || bordered ||
      style.boxShadow !== 'none' || ownText || ['IMG', 'SVG', 'CANVAS', 'VIDEO', 'IFRAME', 'INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName.toUpperCase());
    return painted ? null : 'transparent (no background, border or text of its own)';
  }

  // What a pointer at a viewport point hits, for answers: the element, its box, whether it can be
  // seen (and why not). It takes the pointer, or it would not be hit.
  function pointerTarget(hit) {
    const invisible = invisibleBecause(hit);
    const info = { element: describe(hit), rect: box(hit.getBoundingClientRect()), visible: !invisible, catchesPointer: true };
    if (invisible) info.invisible = invisible;
    return info;
  }

  // What each action needs before it may proceed. The names are the service's `Action` enum
  // (src/browser/page/action.rs); a name not listed here is refused, never waved through.
  //   enabled: not disabled; stable: not moved by an animation or a script; hitTarget: what a
  //   click at its centre hits; editable: takes typed text; focus: gets keyboard focus;
  //   anyMatch: several matches are fine (the first is used) rather than ambiguous.
  const ACTIONS = Object.freeze({
    click: Object.freeze({ enabled: true, stable: true, hitTarget: true }),
    fill: Object.freeze({ enabled: true, editable: true, focus: true }),
    press: Object.freeze({ enabled: true, focus: true }),
    read: Object.freeze({ stable: true, anyMatch: true }),
    select: Object.freeze({ enabled: true }),
    check: Object.freeze({ enabled: true, stable: true, hitTarget: true }),
    hover: Object.freeze({ stable: true, hitTarget: true }),
    focus: Object.freeze({ focus: true }),
  });

  // The rules for `action`, or null when the name is unknown.
  const rules = (action) => (Object.prototype.hasOwnProperty.call(ACTIONS, action) ? ACTIONS[action] : null);

  // Waits one check's worth for `el` to be actionable under `rule` (see ACTIONS).
  // Returns {x, y, …} (viewport centre) when ready, {wait: reason} saying what is missing, or
  // {fatal: reason} when waiting cannot help.
  //
  // With `scroll` (the default), the element is scrolled to the middle of the viewport first, and
  // what a user at the scroll position before would have hit at its centre is said (`approach`:
  // {userWouldHit, scrolledBy}) when it is something else. Without it, the element is taken where it
  // is: a point of it outside the viewport, or something else on top there, fails at once
  // ({outside}, {covered}): that is what a user would meet.
  async function actionable(el, rule, scroll = true) {
    if (!el.isConnected) return { wait: 'is no longer attached to the document' };
    if (!isVisible(el)) return { wait: 'is not visible' };
    if (rule.enabled && isDisabled(el)) return { wait: 'is disabled' };
    if (rule.editable) {
      const problem = editableProblem(el);
      if (problem) return { fatal: problem };
    }
    let approach = null;
    // What the pointer hits at the element's centre before it is scrolled, and its box after.
    let seen = null;
    let scrolled = null;
    if (scroll) {
      const before = el.getBoundingClientRect();
      const bx = before.x + before.width / 2, by = before.y + before.height / 2;
      let userWouldHit = null;
      if (rule.hitTarget && inViewport(bx, by)) {
        const hit = hitAt(bx, by);
        seen = { x: bx, y: by, hit };
        if (hit && !contains(el, hit)) userWouldHit = pointerTarget(hit);
      }
      el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
      const after = el.getBoundingClientRect();
      scrolled = after;
      const scrolledBy = { x: Math.round(before.x - after.x), y: Math.round(before.y - after.y) };
      approach = {};
      if (userWouldHit) approach.userWouldHit = userWouldHit;
      if (scrolledBy.x || scrolledBy.y) approach.scrolledBy = scrolledBy;
    }
    // Stable (for clicks and element screenshots, which use the box's position; typing goes to
    // the focused element wherever it is): no CSS animation or transition moves it, and, when a
    // script may be moving it (styledByScript), the same box one animation frame later. The frame
    // advances the document's animation time and runs the page's own rAF callbacks first, so
    // anything a script moves shows. Without a sign of motion no frame is awaited: a frame is
    // 16 ms, most of a click's cost.
    let rect = scrolled || el.getBoundingClientRect();
    if (rule.stable && movingByAnimation(el)) return { wait: 'is not stable (it is moving or resizing)' };
    if (rule.stable && styledByScript(el)) {
      const before = rect;
      seen = null; // a frame passes: look again
      await nextFrame();
      const after = el.getBoundingClientRect();
      if (before.x !== after.x || before.y !== after.y || before.width !== after.width || before.height !== after.height) {
        return { wait: 'is not stable (it is moving or resizing)' };
      }
    }
    if (!scroll) {
      // Where a user would point: the middle of the part of it the viewport shows.
      const left = Math.max(rect.left, 0), top = Math.max(rect.top, 0);
      const right = Math.min(rect.right, innerWidth), bottom = Math.min(rect.bottom, innerHeight);
      if (rule.hitTarget && (right <= left || bottom <= top)) {
        return { outside: 'is outside the viewport (at ' + Math.round(rect.x) + ', ' + Math.round(rect.y) + ', ' +
          Math.round(rect.width) + '×' + Math.round(rect.height) + '; the viewport is ' + innerWidth + '×' + innerHeight +
          ' and scrolled to ' + Math.round(scrollX) + ', ' + Math.round(scrollY) + ')' };
      }
      if (rule.hitTarget) rect = new DOMRect(left, top, right - left, bottom - top);
    }
    const x = rect.x + rect.width / 2;
    const y = rect.y + rect.height / 2;
    if (rule.hitTarget) {
      // Nothing scrolled, moved or ran since the look before scrolling: the same point, the same hit.
      const hit = seen && seen.x === x && seen.y === y ? seen.hit : hitAt(x, y);
      if (hit && !contains(el, hit)) {
        if (!scroll) return { covered: pointerTarget(hit) };
        return { wait: 'is covered by ' + describe(hit) };
      }
    }
    const ready = { x, y, width: rect.width, height: rect.height, pageX: rect.x + window.scrollX, pageY: rect.y + window.scrollY };
    if (approach) ready.approach = approach;
    return ready;
  }

  // The element the last action touched, and whether it looked busy then: what an action's end
  // checks (busy) to say a control stayed disabled, aria-busy or "Saving…" with nothing pending.
  let touched = null;
  const BUSY_TEXT = /(…|\.\.\.)\s*$|^(loading|saving|sending|submitting|processing|please wait|working|uploading|updating|placing|signing in|logging in|creating|deleting|paying)\b/i;
  const SPINNER = '[role=progressbar], [aria-busy=true], .spinner, .loading, .loader, .spin';
  function busyOf(el) {
    const states = [];
    if (isDisabled(el)) states.push('disabled');
    if (el.getAttribute('aria-busy') === 'true') states.push('aria-busy');
    // Its text without a layout (innerText would force one at the end of every action): a busy
    // label is the control's own text.
    const text = el instanceof HTMLInputElement
      ? (['button', 'submit', 'reset'].includes(el.type) ? collapse(el.value) : '')
      : collapse(el.textContent || '');
    const form = el.form || el.closest('form');
    const spinners = [...document.querySelectorAll(SPINNER)].slice(0, 20).filter((s) => s !== el && isVisible(s));
    return { states, text: text.length <= 60 ? text : text.slice(0, 59) + '…', busyText: BUSY_TEXT.test(text),
      formBusy: !!form && form.getAttribute('aria-busy') === 'true', spinners, form };
  }
  function touch(el) {
    touched = { ref: new WeakRef(el), at: performance.timeOrigin + performance.now(), before: busyOf(el) };
  }
  // Whether the element touched since `since` (ms since the Unix epoch) shows a sign of work in
  // progress it did not show before (aria-busy on it or its form, a busy text such as "Saving…", a
  // spinner shown): {element, watch, states, text, spinner, form, disabledOnly}, or null. Disabled
  // alone is no sign (a form that is done may disable its button): it is answered as
  // `disabledOnly`, which counts only beside an error (the service decides).
  function busy(since) {
    const el = touched && touched.at >= since - 5 ? touched.ref.deref() : null;
    if (!el || !el.isConnected) return null;
    const now = busyOf(el), before = touched.before;
    const spinner = now.spinners.find((s) => !before.spinners.includes(s));
    const fresh = (now.states.includes('aria-busy') && !before.states.includes('aria-busy')) ||
      (now.busyText && !before.busyText) || spinner || (now.formBusy && !before.formBusy);
    const disabled = now.states.includes('disabled') && !before.states.includes('disabled');
    if (!fresh && !disabled) return null;
    return { element: describe(el), watch: watchName(el), states: now.states, text: now.text,
      spinner: spinner ? describe(spinner) : null, form: now.formBusy ? describe(now.form) : null,
      disabledOnly: !fresh };
  }

  // page.fill's last step, after the text was typed into the focused element (input events fired):
  // a user leaving the field would fire `change`, so fire it. For inputs that take a value rather
  // than typing (date, color, range …) `setValue` sets `value` first. False: nothing is focused.
  function leaveField(value, setValue) {
    let el = document.activeElement;
    while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
    if (!el) return false;
    // The DOM watcher notes what the session put into a field from these events (js/dom_watch.js).
    globalThis.__textBrowserFilling = el;
    try {
      if (setValue) {
        const proto = Object.getPrototypeOf(el);
        const setter = Object.getOwnPropertyDescriptor(proto, 'value')?.set;
        if (setter) setter.call(el, value); else el.value = value;
        el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
      }
      el.dispatchEvent(new Event('change', { bubbles: true }));
    } finally {
      globalThis.__textBrowserFilling = null;
    }
    return true;
  }

  // The DOM watcher's report of what it holds (js/dom_watch.js, which runs in this same world), for
  // the answer of the service's call: one message fewer per action than a binding call of its own.
  // Past `by` (ms since the Unix epoch), when the service may have stopped waiting for the answer,
  // it goes through the watcher's binding instead, so nothing is lost. Null: nothing to report (or
  // no watcher in this document).
  function domReport(by) {
    const take = globalThis.__textBrowserDomReport;
    if (typeof take !== 'function') return null;
    const report = take();
    if (report === null || (typeof by === 'number' && Date.now() < by)) return report;
    const send = globalThis.__textBrowserDom;
    if (typeof send === 'function') send(report);
    return null;
  }

  Object.defineProperty(globalThis, '__textBrowser', {
    value: Object.freeze({ query, find, describe, rules, actionable, elementText, collapse, isVisible, VALUE_INPUTS,
      hitAt, inViewport, pointerTarget, touch, busy, watchName, watchNames, box, leaveField, domReport }),
  });
})();
