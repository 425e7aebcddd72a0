// The listeners an action's events are about to reach. Evaluated once per document in the page's
// own world with the DevTools command-line API in scope (Runtime.evaluate includeCommandLineAPI):
// `getEventListeners` lists a node's listeners, which only the page's own world can see, and the
// function made here keeps it. It answers with a function the service calls just before an
// action's input, with the builtins it needs taken now (a page that replaces them later changes
// nothing); nothing of it is reachable from the page.
//
//   lookup(x, y, types): the listeners of `types` on the element at viewport point (x, y) — or, when
//   x is null, the focused element — and on its ancestors (through shadow roots), the document and
//   the window, nearest first: [{on, type, capture, once, passive, name, inline?, prevents}] (at
//   most 24; `inline`: the code of an inline attribute handler such as onsubmit="return false";
//   `prevents`: its code calls preventDefault or returns false), plus the element as
//   {target: {tag, id, cls, text, name}}.
//   Each listener has a `fid`: its function's number for this document (the same function, the
//   same number), so the service names each function's script location once.
//   lookup.take(fids): the functions numbered `fids` seen by the last lookup, in that order (for
//   their script locations).
(() => {
  const listenersOf = getEventListeners;
  const elementFromPoint = Document.prototype.elementFromPoint;
  const shadowFromPoint = ShadowRoot.prototype.elementFromPoint;
  const activeOf = Object.getOwnPropertyDescriptor(Document.prototype, 'activeElement').get;
  const getAttribute = Element.prototype.getAttribute;
  const source = Function.prototype.toString;
  const MAX = 24;
  const numbers = new WeakMap();
  let counted = 0;
  let last = new Map();
  const numberOf = (fn) => {
    let fid = numbers.get(fn);
    if (!fid) {
      fid = ++counted;
      numbers.set(fn, fid);
    }
    return fid;
  };

  const name = (n) => {
    if (n === window) return 'window';
    if (n === document) return 'document';
    if (n.nodeType === 11) return '#shadow-root';
    let d = String(n.localName);
    const id = getAttribute.call(n, 'id');
    if (id) d += '#' + id;
    const cls = getAttribute.call(n, 'class');
    if (cls) d += '.' + cls.trim().split(/\s+/).slice(0, 2).join('.');
    return d;
  };

  const start = (x, y) => {
    if (x === null) {
      let el = activeOf.call(document);
      while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
      return el;
    }
    let hit = elementFromPoint.call(document, x, y);
    while (hit && hit.shadowRoot) {
      const inner = shadowFromPoint.call(hit.shadowRoot, x, y);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    return hit;
  };

  function lookup(x, y, types) {
    last = new Map();
    const el = start(x, y);
    if (!el) return { target: null, listeners: [] };
    const path = [];
    for (let n = el; n; n = n.parentNode || n.host) path.push(n);
    path.push(window);
    const listeners = [];
    for (const n of path) {
      let all;
      try {
        all = listenersOf(n);
      } catch (e) {
        continue;
      }
      for (const type of types) {
        for (const l of all[type] || []) {
          if (listeners.length === MAX) break;
          const fn = l.listener;
          const attribute = n.nodeType === 1 ? getAttribute.call(n, 'on' + type) : null;
          const inline = attribute !== null && n['on' + type] === fn ? attribute : undefined;
          let code = inline;
          if (code === undefined && typeof fn === 'function') {
            try {
              code = source.call(fn);
            } catch (e) {
              code = '';
            }
          }
          const prevents = /preventDefault\s*\(|returnValue\s*=\s*false/.test(code || '') ||
            (inline !== undefined && /return\s+false/.test(inline));
          const handler = typeof fn === 'function' ? fn : (fn && typeof fn.handleEvent === 'function' ? fn.handleEvent : null);
          const fid = handler ? numberOf(handler) : 0;
          if (handler) last.set(fid, handler);
          listeners.push({ on: name(n), type, capture: !!l.useCapture, once: !!l.once, passive: !!l.passive,
            name: typeof fn === 'function' ? String(fn.name || '') : 'handleEvent', inline, prevents, fid });
        }
      }
    }
    const text = String(el.textContent || '').replace(/\s+/g, ' ').trim().slice(0, 60);
    return { target: { tag: String(el.localName), id: getAttribute.call(el, 'id') || '', cls: getAttribute.call(el, 'class') || '', text, name: name(el) }, listeners };
  }
  lookup.take = (fids) => fids.map((fid) => last.get(fid) || null);
  return lookup;
})()
