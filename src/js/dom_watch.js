// The DOM watcher: what changes on the page, for the page's timeline.
//
// Runs in the service's own isolated world of every document (Page.addScriptToEvaluateOnNewDocument
// with a worldName), so the page cannot see or break it; the world shares the page's DOM, so a
// MutationObserver here sees every change the page's scripts make. From DOMContentLoaded on (the
// parser building the document is not news), changes are coalesced per element over ~50 ms and
// reported through the binding `__textBrowserDom` (Runtime.addBinding, exposed to this world only;
// its name is fixed here and in watch/events.rs): children added / removed / replaced with counts,
// text before → after (short), and state attributes. Each change carries when it happened (ms since
// the Unix epoch, the page's clock) and the user input it followed in the same task, if any.
(() => {
  if (window !== window.top || globalThis.__textBrowserDomWatch) return;
  globalThis.__textBrowserDomWatch = true;
  const STATE = [
    'disabled', 'hidden', 'class', 'style', 'open', 'checked', 'selected', 'readonly',
    'aria-busy', 'aria-disabled', 'aria-hidden', 'aria-expanded', 'aria-selected', 'aria-checked',
    'aria-pressed', 'aria-invalid', 'aria-current',
  ];
  const WINDOW_MS = 50; // coalescing window
  const MAX_ELEMENTS = 12; // elements reported per window; the rest are summed under their ancestor
  const TEXT = 60; // characters of a text shown
  const now = () => performance.timeOrigin + performance.now();
  const cut = (s) => {
    const t = String(s).replace(/\s+/g, ' ').trim();
    return t.length > TEXT ? t.slice(0, TEXT - 1) + '…' : t;
  };
  const describe = (el) => {
    if (!(el instanceof Element)) return el === document ? 'document' : '#text';
    const tag = el.localName;
    if (el.id) return '#' + el.id;
    const cls = typeof el.className === 'string' ? el.className.trim().split(/\s+/)[0] : '';
    const self = cls ? tag + '.' + cls : tag;
    for (let up = el.parentElement; up; up = up.parentElement) {
      if (up.id) return '#' + up.id + ' ' + self;
    }
    return self;
  };

  // The input event being dispatched, until its task ends: a change the handlers make in that task
  // (reported to the observer at its end) followed it.
  let lastInput = null;
  const noteInput = (e) => {
    const input = { what: e.type + ' on ' + describe(e.target) };
    lastInput = input;
    setTimeout(() => {
      if (lastInput === input) lastInput = null;
    }, 0);
  };
  for (const type of ['keydown', 'input', 'change', 'click', 'pointerdown', 'submit']) {
    addEventListener(type, noteInput, { capture: true, passive: true });
  }

  let pending = new Map(); // element → change
  let timer = 0;
  const changeOf = (el, t) => {
    let c = pending.get(el);
    if (!c) {
      c = { t, added: 0, removed: 0, tags: new Set(), before: null, attrs: new Map(), input: null };
      if (lastInput) c.input = lastInput.what;
      pending.set(el, c);
    }
    return c;
  };
  const textOf = (nodes) => {
    let text = '';
    for (const n of nodes) {
      if (n.nodeType !== Node.TEXT_NODE) return null;
      text += n.data;
    }
    return text;
  };
  const take = (records) => {
    const t = now();
    for (const r of records) {
      if (r.type === 'childList') {
        const c = changeOf(r.target, t);
        for (const n of r.addedNodes) {
          if (n.nodeType === Node.ELEMENT_NODE) {
            c.added++;
            c.tags.add(n.localName);
          }
        }
        for (const n of r.removedNodes) if (n.nodeType === Node.ELEMENT_NODE) c.removed++;
        const removedText = textOf(r.removedNodes);
        if (c.before === null && removedText !== null && r.removedNodes.length) c.before = removedText;
        if (c.before === null && !r.removedNodes.length && textOf(r.addedNodes) !== null) c.before = '';
      } else if (r.type === 'characterData') {
        const el = r.target.parentElement;
        if (!el) continue;
        const c = changeOf(el, t);
        if (c.before === null) c.before = el.textContent.replace(r.target.data, r.oldValue || '');
      } else if (r.type === 'attributes') {
        const c = changeOf(r.target, t);
        if (!c.attrs.has(r.attributeName)) c.attrs.set(r.attributeName, r.oldValue);
      }
    }
    if (!timer && pending.size) timer = setTimeout(flush, WINDOW_MS);
  };
  const observer = new MutationObserver(take);

  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = 0;
    const send = globalThis.__textBrowserDom;
    const batch = pending;
    pending = new Map();
    if (typeof send !== 'function') return;
    const out = [];
    const rest = [];
    for (const [el, c] of batch) {
      const attrs = [];
      for (const [name, before] of c.attrs) {
        const after = el.getAttribute(name);
        if (after !== before) attrs.push([name, before === null ? null : cut(before), after === null ? null : cut(after)]);
      }
      const after = c.before === null ? null : cut(el.textContent || '');
      const text = c.before !== null && cut(c.before) !== after ? [cut(c.before), after] : null;
      if (!c.added && !c.removed && !text && !attrs.length) continue;
      if (out.length === MAX_ELEMENTS) {
        rest.push(el);
        continue;
      }
      out.push({
        t: c.t,
        el: describe(el),
        added: c.added,
        removed: c.removed,
        tag: c.tags.size === 1 ? [...c.tags][0] : null,
        text,
        attrs,
        input: c.input,
      });
    }
    if (rest.length) {
      // The closest ancestor the remaining elements share.
      let common = rest[0];
      for (const el of rest.slice(1)) {
        while (common && !common.contains(el)) common = common.parentElement;
        if (!common) break;
      }
      out.push({ t: out[0].t, el: common ? describe(common) : 'document', others: rest.length });
    }
    if (out.length) send(JSON.stringify(out));
  };

  // The service asks for what is held at the end of an action (js/next_task.js, js/flush_dom.js).
  document.addEventListener('textbrowser:flush', () => {
    take(observer.takeRecords());
    if (pending.size) flush();
  });

  const start = () =>
    observer.observe(document, {
      subtree: true,
      childList: true,
      characterData: true,
      characterDataOldValue: true,
      attributes: true,
      attributeOldValue: true,
      attributeFilter: STATE,
    });
  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', start, { once: true });
  } else {
    start();
  }
})();
