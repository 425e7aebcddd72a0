// What an action's events reach: the page's listeners along the path of each input event the
// service dispatches. Runs in the page's own world of every top-level document from its first
// moment (Page.addScriptToEvaluateOnNewDocument with includeCommandLineAPI), because only that world
// sees the page's listeners: the DevTools command-line API's `getEventListeners`, kept here, lists
// the listeners of the world that calls it. Nothing of it is reachable from the page (no global;
// the builtins it needs taken before any script of the page's runs).
//
// When a trusted input begins — a pointerdown, a pointermove, a keydown, a beforeinput that is not
// a keydown's; only the service's input is trusted in its browser — a capture
// listener on the window, registered before any of the page's, lists the listeners of every event
// a user's input may dispatch along the event's path (its target, the ancestors through shadow
// roots, the document, the window, nearest first), before any listener of the page's has run:
// `once` listeners are still there, an element a handler then replaces is the one hit. It hands
// the list to the DOM watcher in the service's world (js/dom_watch.js) as the detail of a
// `textbrowser:reached` event on the document (cloned across worlds), which sends it with its next
// report: {by, t, target: {tag, id, cls, text, name}, listeners: [{on, type, capture, name, inline?,
// prevents, fid}]} (at most 48; `inline`: the code of an inline attribute handler such as
// onsubmit="return false"; `prevents`: its code calls preventDefault or returns false; `fid`: the
// function's number for this document, the same function, the same number).
//
// The service asks through `textbrowser:reach-ask` events (js/reach_ask.js): {take: fids} answers
// the functions numbered `fids` (for their script locations); {look: {x, y}} the same list for
// the element at viewport point (x, y), or the focused element when x is null, for input the page
// gets untrusted (a value set by script, an option chosen).
(() => {
  if (window !== window.top) return;
  const listenersOf = getEventListeners;
  const elementFromPoint = Document.prototype.elementFromPoint;
  const shadowFromPoint = ShadowRoot.prototype.elementFromPoint;
  const activeOf = Object.getOwnPropertyDescriptor(Document.prototype, 'activeElement').get;
  const getAttribute = Element.prototype.getAttribute;
  const composedPath = Event.prototype.composedPath;
  const dispatch = EventTarget.prototype.dispatchEvent;
  const listen = EventTarget.prototype.addEventListener;
  const Reached = CustomEvent;
  const source = Function.prototype.toString;
  const MAX = 48;
  // Every event a click, double click, hover, key or typed text may dispatch; the service keeps
  // those of the input it made.
  const TYPES = [
    'pointerover', 'pointerenter', 'mouseover', 'mouseenter', 'pointermove', 'mousemove',
    'pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click', 'dblclick',
    'keydown', 'keypress', 'beforeinput', 'input', 'keyup', 'change', 'submit',
  ];
  // The events that begin an input: a press, a move (a pointer entering an element moves on it
  // too), a key, text put in without a key (a beforeinput right after a keydown is that key's).
  const BEGINS = ['pointerdown', 'pointermove', 'keydown', 'beforeinput'];
  const SAME_KEY_MS = 2;
  const numbers = new WeakMap();
  let counted = 0;
  // The functions of the last lookups by number, for the service to name (at most MAX_KEPT).
  const MAX_KEPT = 256;
  let seen = new Map();
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

  let onInput = null;
  // The listeners along `path` (nearest first, ending with the window) and its first element.
  const lookup = (path) => {
    if (seen.size > MAX_KEPT) seen = new Map();
    const el = path[0];
    if (!el || el.nodeType !== 1) return { target: null, listeners: [] };
    const listeners = [];
    for (const n of path) {
      let all;
      try {
        all = listenersOf(n);
      } catch (e) {
        continue;
      }
      for (const type of TYPES) {
        for (const l of all[type] || []) {
          const fn = l.listener;
          if (listeners.length === MAX || fn === onInput) continue;
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
          if (handler) seen.set(fid, handler);
          listeners.push({ on: name(n), type, capture: !!l.useCapture,
            name: typeof fn === 'function' ? String(fn.name || '').slice(0, 80) : 'handleEvent',
            inline: inline === undefined ? undefined : inline.slice(0, 200), prevents, fid });
        }
      }
    }
    const text = String(el.textContent || '').replace(/\s+/g, ' ').trim().slice(0, 60);
    const target = { tag: String(el.localName), id: getAttribute.call(el, 'id') || '', cls: getAttribute.call(el, 'class') || '', text, name: name(el) };
    return { target, listeners };
  };

  // The path an input at viewport point (x, y) — or, when x is null, a key — would take.
  const pathAt = (x, y) => {
    let el;
    if (x === null) {
      el = activeOf.call(document);
      while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
    } else {
      el = elementFromPoint.call(document, x, y);
      while (el && el.shadowRoot) {
        const inner = shadowFromPoint.call(el.shadowRoot, x, y);
        if (!inner || inner === el) break;
        el = inner;
      }
    }
    const path = [];
    for (let n = el; n; n = n.parentNode || n.host) path.push(n);
    if (path.length) path.push(window);
    return path;
  };

  // Named so that page.inspect can leave the service's own listeners out (REACH_MARK in
  // watch/dom.rs).
  let keyAt = -Infinity;
  onInput = function __textBrowserReach(e) {
    if (!e.isTrusted) return; // unforgeable, on the event itself
    const t = performance.now();
    if (e.type === 'keydown') keyAt = t;
    else if (e.type === 'beforeinput' && t - keyAt < SAME_KEY_MS) return;
    const found = lookup(composedPath.call(e));
    found.by = e.type;
    found.t = performance.timeOrigin + t;
    dispatch.call(document, new Reached('textbrowser:reached', { detail: found }));
  };
  for (const type of BEGINS) listen.call(window, type, onInput, { capture: true, passive: true });

  listen.call(window, 'textbrowser:reach-ask', function __textBrowserReachAsk(e) {
    const question = e.question;
    if (e.isTrusted || !question) return;
    if (question.take) {
      e.answer = question.take.map((fid) => seen.get(fid) || null);
    } else if (question.look) {
      e.answer = lookup(pathAt(question.look.x, question.look.y));
    }
  }, { capture: true });
})();
