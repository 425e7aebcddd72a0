// What an action's events reach: the page's listeners along the path of each input event the
// service dispatches. Runs in the page's own world of every top-level document from its first
// moment (Page.addScriptToEvaluateOnNewDocument with includeCommandLineAPI), because only that world
// sees the page's listeners: the DevTools command-line API's `getEventListeners`, kept here, lists
// the listeners of the world that calls it. Nothing of it is reachable from the page (no global;
// the builtins it needs taken before any script of the page's runs). It follows js/framework.js in
// one block, whose `frameworks` it reads.
//
// When a trusted input begins — a pointerdown, a pointermove, a keydown, a beforeinput that is not
// a keydown's; only the service's input is trusted in its browser — a capture
// listener on the window, registered before any of the page's, lists the listeners of every event
// a user's input may dispatch along the event's path (its target, the ancestors through shadow
// roots, the document, the window, nearest first), before any listener of the page's has run:
// `once` listeners are still there, an element a handler then replaces is the one hit. It hands
// the list to the DOM watcher in the service's world (js/dom_watch.js) as the detail of a
// `textbrowser:reached` event on the document (JSON text), which sends it with its next report:
// {by, t, target: {tag, id, cls, text, name}, listeners: [{on, type, capture, name, inline?,
// prevents, fid, fw?, prop?, comp?, delegation?}], toggles?} (at most 48; `inline`: the code of an inline
// attribute handler such as onsubmit="return false"; `prevents`: its code calls preventDefault or
// returns false; `fid`: the function's number for this document, the same function, the same
// number). Where React or Vue stands between the event and the app: the component's own handler
// in place of the framework's listener (`fw`: React or Vue, `prop`: React's prop, `onClick`, or
// `v-model` for the assigner Vue's v-model calls;
// `comp`: the component that rendered the element, {fw, name, fid}), and React's delegation on
// its root as one entry (`delegation`: how many of its listeners). `toggles`: a click there
// toggles a checkbox or radio, whose `input` and `change` its default action fires.
//
// The service asks through `textbrowser:reach-ask` events (js/reach_ask.js): {take: fids} answers
// the functions numbered `fids` (for their script locations); {look: {x, y}} the same list for
// the element at viewport point (x, y), or the focused element when x is null, for input the page
// gets untrusted (a value set by script, an option chosen); {at: element} the same list for that
// element (page.inspect). The DOM watcher asks which component
// rendered an element through `textbrowser:component-ask` events (see below).
//
// Messages the window gets (postMessage from a frame, a popup or itself): a capture listener
// registered before any of the page's lists, at each one's dispatch, the window's `message`
// listeners (numbered like an input's), where it came from (the frame, its origin) and the data's
// outline — keys and types only, read here where the browser keeps the data deserialized (another
// world would deserialize it again) — and hands the note to the DOM watcher as the detail of a
// `textbrowser:message` event (JSON text): {t, origin, from, outline, tags, listeners, ports,
// unread}. At most MESSAGES_PER_SECOND are noted; the rest are counted (`unread`).
(() => {
  if (window !== window.top) return;
  const listenersOf = getEventListeners;
  const elementFromPoint = Document.prototype.elementFromPoint;
  const shadowFromPoint = ShadowRoot.prototype.elementFromPoint;
  const activeOf = Object.getOwnPropertyDescriptor(Document.prototype, 'activeElement').get;
  const getAttribute = Element.prototype.getAttribute;
  const closest = Element.prototype.closest;
  const indexOf = Array.prototype.indexOf;
  const composedPath = Event.prototype.composedPath;
  const dispatch = EventTarget.prototype.dispatchEvent;
  const listen = EventTarget.prototype.addEventListener;
  const Reached = CustomEvent;
  const source = Function.prototype.toString;
  const ownProperty = Object.getOwnPropertyDescriptor;
  const stringify = JSON.stringify;
  const assign = Object.assign;
  const MAX = 48;
  // The events whose listeners are listed when an input begins with each event (what the service
  // keeps of them: `Input::events` in browser/page/reach.rs; a test holds the two together). A key's
  // own beforeinput is no beginning, but one the service's key events make late (a loaded machine)
  // lists what a key reaches.
  const POINTER_DOWN = ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click', 'dblclick', 'input', 'change', 'submit'];
  const POINTER_MOVE = ['pointerover', 'pointerenter', 'mouseover', 'mouseenter', 'pointermove', 'mousemove'];
  const KEYS = ['keydown', 'keypress', 'beforeinput', 'input', 'keyup', 'change', 'submit'];
  // What a click's default action fires on the checkbox or radio it toggles.
  const TOGGLE = ['input', 'change'];
  const TYPES_BY_BEGIN = { pointerdown: POINTER_DOWN, pointermove: POINTER_MOVE, keydown: KEYS, beforeinput: KEYS };
  // A lookup the service asks for lists every one of them.
  const TYPES = [...new Set([...POINTER_MOVE, ...POINTER_DOWN, ...KEYS])];
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

  // What a listener's function says of itself, kept per function (reading its source each time
  // costs an input more than the rest of the lookup): its name and whether its code calls
  // preventDefault.
  const known = new WeakMap();
  const studied = (fn) => {
    let facts = known.get(fn);
    if (!facts) {
      let code = '';
      try {
        code = source.call(fn);
      } catch (e) {}
      const own = ownProperty(fn, 'name');
      facts = { name: own && typeof own.value === 'string' ? own.value.slice(0, 80) : '',
        prevents: /preventDefault\s*\(|returnValue\s*=\s*false/.test(code) };
      known.set(fn, facts);
    }
    return facts;
  };

  let onInput = null;
  let onMessage = null;
  // The entry of a listener whose function is `fn` (for a handler React or Vue calls, `extra` says
  // whose: `fw`, `prop`, `comp`).
  const entry = (n, type, capture, fn, inline, extra) => {
    const handler = typeof fn === 'function' ? fn : (fn && typeof fn.handleEvent === 'function' ? fn.handleEvent : null);
    const facts = handler ? studied(handler) : { name: '', prevents: false };
    const prevents = inline !== undefined
      ? /preventDefault\s*\(|returnValue\s*=\s*false|return\s+false/.test(inline)
      : facts.prevents;
    const fid = handler ? numberOf(handler) : 0;
    if (handler) seen.set(fid, handler);
    const l = { on: name(n), type, capture: !!capture,
      name: typeof fn === 'function' ? facts.name : 'handleEvent',
      inline: inline === undefined ? undefined : inline.slice(0, 200), prevents, fid };
    return extra ? assign(l, extra) : l;
  };
  // The component that rendered `n` as an entry names it: {fw, name, fid} (fid: its function's
  // number, for a production build's minified name to be mapped back; 0 for Vue's).
  const componentOf = (n) => {
    const c = n && n.nodeType === 1 ? frameworks.component(n) : null;
    if (!c) return null;
    let fid = 0;
    if (c.fn) {
      fid = numberOf(c.fn);
      seen.set(fid, c.fn);
    }
    return { fw: c.fw, name: c.name, fid };
  };
  // The listeners of `types` on one node of a path, pushed to `listeners`: the handlers React and
  // Vue call in place of their own listeners (React's delegation on its root counted in one entry).
  const listenersAt = (n, types, listeners) => {
    let all;
    try {
      all = listenersOf(n);
    } catch (e) {
      return;
    }
    const element = n.nodeType === 1;
    const reactRoot = element && frameworks.reactRoot(n);
    let delegated = 0;
    let first = '';
    for (let i = 0; i < types.length; i++) {
      const type = types[i];
      const list = all[type] || [];
      for (let j = 0; j < list.length; j++) {
        const l = list[j];
        const fn = l.listener;
        if (listeners.length === MAX || fn === onInput || fn === onMessage) continue;
        if (reactRoot && typeof fn === 'function' && /^bound /.test(studied(fn).name)) {
          if (!delegated++) first = type;
          continue;
        }
        if (element && frameworks.reactShim(n, fn)) continue;
        const vue = frameworks.vueHandlers(fn);
        if (vue) {
          const comp = componentOf(n);
          for (const h of vue) listeners.push(entry(n, type, l.useCapture, h, undefined, { fw: 'Vue', comp }));
          continue;
        }
        const model = element && (type === 'change' || type === 'input') ? frameworks.vueModel(n, fn) : null;
        if (model) {
          listeners.push(entry(n, type, l.useCapture, model, undefined, { fw: 'Vue', prop: 'v-model', comp: componentOf(n) }));
          continue;
        }
        const attribute = element ? getAttribute.call(n, 'on' + type) : null;
        const inline = attribute !== null && n['on' + type] === fn ? attribute : undefined;
        listeners.push(entry(n, type, l.useCapture, fn, inline));
      }
      if (!element) continue;
      for (const h of frameworks.reactHandlers(n, type)) {
        if (listeners.length === MAX) break;
        listeners.push(entry(n, type, h.capture, h.fn, undefined, { fw: 'React', prop: h.prop, comp: componentOf(n) }));
      }
    }
    if (delegated && listeners.length < MAX) {
      listeners.push({ on: name(n), type: first, capture: false, name: '', prevents: false, fid: 0, fw: 'React', delegation: delegated });
    }
  };
  // The checkbox or radio a click on `el` toggles, whose `input` and `change` the click's default
  // action fires: `el` itself, or the control of the label it is in.
  const toggledBy = (el) => {
    if (frameworks.checkable(el)) return el;
    const label = closest.call(el, 'label');
    const control = label && label.control;
    return control && frameworks.checkable(control) ? control : null;
  };
  // The listeners of `types` along `path` (nearest first, ending with the window) and its first
  // element; when a click there toggles a checkbox or radio (`types` has `change`: a pointer's),
  // `toggles`, with the listeners of its `input` and `change` along its own path too.
  const lookup = (path, types) => {
    if (seen.size > MAX_KEPT) seen = new Map();
    const el = path[0];
    if (!el || el.nodeType !== 1) return { target: null, listeners: [] };
    const listeners = [];
    for (let p = 0; p < path.length; p++) listenersAt(path[p], types, listeners);
    const toggled = indexOf.call(types, 'change') >= 0 ? toggledBy(el) : null;
    for (let n = toggled !== el ? toggled : null; n; n = n.parentNode || n.host) {
      if (indexOf.call(path, n) < 0) listenersAt(n, TOGGLE, listeners);
    }
    const text = String(el.textContent || '').replace(/\s+/g, ' ').trim().slice(0, 60);
    const target = { tag: String(el.localName), id: getAttribute.call(el, 'id') || '', cls: getAttribute.call(el, 'class') || '', text, name: name(el) };
    return { target, listeners, toggles: !!toggled };
  };

  // A list as JSON, written out here: structured cloning an object into the DOM watcher's world
  // costs more than this, and JSON.stringify on an object would call a `toJSON` the page defined.
  // Strings and numbers only go through `stringify`, which calls nothing of the page's for them.
  const q = (s) => stringify(typeof s === 'string' ? s : '');
  const encodeComponent = (c) => '{"fw":' + q(c.fw) + ',"name":' + q(c.name) + ',"fid":' + c.fid + '}';
  const encode = (found) => {
    const t = found.target;
    let out = '{"by":' + q(found.by) + ',"t":' + (typeof found.t === 'number' ? found.t : 0) + ',"target":' +
      (t ? '{"tag":' + q(t.tag) + ',"id":' + q(t.id) + ',"cls":' + q(t.cls) + ',"text":' + q(t.text) +
        ',"name":' + q(t.name) + '}' : 'null') + ',"listeners":[';
    for (let i = 0; i < found.listeners.length; i++) {
      const l = found.listeners[i];
      out += (i ? ',' : '') + '{"on":' + q(l.on) + ',"type":' + q(l.type) + ',"capture":' + (l.capture ? 'true' : 'false') +
        ',"name":' + q(l.name) + (l.inline === undefined ? '' : ',"inline":' + q(l.inline)) +
        ',"prevents":' + (l.prevents ? 'true' : 'false') + ',"fid":' + l.fid +
        (l.fw ? ',"fw":' + q(l.fw) : '') + (l.prop ? ',"prop":' + q(l.prop) : '') +
        (l.comp ? ',"comp":' + encodeComponent(l.comp) : '') + (l.delegation ? ',"delegation":' + l.delegation : '') + '}';
    }
    return out + ']' + (found.toggles ? ',"toggles":true' : '') + '}';
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
    const found = lookup(composedPath.call(e), TYPES_BY_BEGIN[e.type]);
    found.by = e.type;
    found.t = performance.timeOrigin + t;
    dispatch.call(document, new Reached('textbrowser:reached', { detail: encode(found) }));
  };
  for (const type of BEGINS) listen.call(window, type, onInput, { capture: true, passive: true });

  // Messages (see the top): the data's outline as `watch/shape.rs` writes a JSON body's — the top
  // object's keys with their types, deeper objects by their keys, lists by their length and first
  // item, a map keyed by data counted — and the short values of naming keys, which the service
  // checks again (names only) and masks.
  const MESSAGES_PER_SECOND = 20;
  const MESSAGE = ['message'];
  const TAG_KEYS = ['type', 'op', 'event', 'action', 'kind', 'code', 'error', 'status', 'topic', 'channel'];
  const OUTLINE_CHARS = 160;
  const keysOf = Object.keys;
  const isArray = Array.isArray;
  const test = RegExp.prototype.test;
  const NAME = /^[A-Za-z_$][A-Za-z0-9_$-]{0,31}$/;
  const selectAll = Document.prototype.querySelectorAll;
  const frameWindow = Object.getOwnPropertyDescriptor(HTMLIFrameElement.prototype, 'contentWindow').get;
  const messageGet = (field) => Object.getOwnPropertyDescriptor(MessageEvent.prototype, field).get;
  const [dataOf, originOf, sourceOf, portsOf] = ['data', 'origin', 'source', 'ports'].map(messageGet);
  const outlineOf = (v, depth) => {
    if (v === null || v === undefined) return 'null';
    const type = typeof v;
    if (type === 'string' || type === 'number' || type === 'boolean') return type;
    if (type === 'bigint') return 'number';
    if (type !== 'object') return type;
    if (isArray(v)) {
      if (!v.length) return '[]';
      return depth < 3 ? '[' + v.length + ' × ' + outlineOf(v[0], depth + 1) + ']' : '[' + v.length + ']';
    }
    let keys;
    try {
      keys = keysOf(v);
    } catch (e) {
      return 'object';
    }
    let named = depth < 3;
    for (let i = 0; i < keys.length && named; i++) named = test.call(NAME, keys[i]);
    if (!named) return '{' + keys.length + ' keys}';
    let out = '';
    for (let i = 0; i < keys.length && i < 8 && out.length < OUTLINE_CHARS; i++) {
      out += (i ? ', ' : '') + keys[i] + (depth === 0 ? ': ' + outlineOf(v[keys[i]], 1) : '');
    }
    return '{' + out + (keys.length > 8 ? ', …+' + (keys.length - 8) : '') + '}';
  };
  const tagsOf = (v) => {
    let out = '';
    if (!v || typeof v !== 'object' || isArray(v)) return out;
    for (let i = 0; i < TAG_KEYS.length; i++) {
      const value = v[TAG_KEYS[i]];
      const type = typeof value;
      if (type !== 'number' && type !== 'boolean' && !(type === 'string' && value.length <= 48)) continue;
      out += (out ? ',' : '') + '[' + q(TAG_KEYS[i]) + ',' + (type === 'string' ? q(value) : stringify(value)) + ']';
    }
    return out;
  };
  // The frame a message came from: `iframe#scheduler (/support/scheduler/)`.
  const frameOf = (source) => {
    if (source === window) return 'this window';
    if (!source) return '';
    const frames = selectAll.call(document, 'iframe');
    for (let i = 0; i < frames.length; i++) {
      if (frameWindow.call(frames[i]) !== source) continue;
      const src = getAttribute.call(frames[i], 'src');
      return name(frames[i]) + (src ? ' (' + src.slice(0, 200) + ')' : '');
    }
    return 'another window';
  };
  let messageBudget = MESSAGES_PER_SECOND;
  let budgetSince = 0;
  let unread = 0;
  onMessage = function __textBrowserReachMessage(e) {
    if (!e.isTrusted) return;
    const t = performance.timeOrigin + performance.now();
    if (t - budgetSince >= 1000) {
      budgetSince = t;
      messageBudget = MESSAGES_PER_SECOND;
    }
    if (messageBudget === 0) {
      unread++;
      return;
    }
    messageBudget--;
    const listeners = [];
    listenersAt(window, MESSAGE, listeners);
    const data = dataOf.call(e);
    let outline = outlineOf(data, 0);
    if (outline.length > OUTLINE_CHARS) outline = outline.slice(0, OUTLINE_CHARS - 1) + '…';
    let list = '';
    for (let i = 0; i < listeners.length && i < 8; i++) {
      const l = listeners[i];
      list += (i ? ',' : '') + '{"on":"window","type":"message","name":' + q(l.name) + ',"fid":' + l.fid + '}';
    }
    const ports = portsOf.call(e);
    const detail = '{"t":' + t + ',"origin":' + q(originOf.call(e)) + ',"from":' + q(frameOf(sourceOf.call(e))) +
      ',"outline":' + q(outline) + ',"tags":[' + tagsOf(data) + '],"listeners":[' + list + '],"ports":' +
      (ports ? ports.length : 0) + ',"unread":' + unread + '}';
    unread = 0;
    dispatch.call(document, new Reached('textbrowser:message', { detail }));
  };
  listen.call(window, 'message', onMessage, { capture: true });

  // The component behind an element whose change the DOM watcher reports (js/dom_watch.js, in the
  // service's world, asks with a `textbrowser:component-ask` event on the element): answered as the
  // detail (JSON text, or "null") of a `textbrowser:component` event on the document, at once.
  listen.call(window, 'textbrowser:component-ask', function __textBrowserReachComponent(e) {
    if (e.isTrusted) return;
    const c = componentOf(e.target);
    dispatch.call(document, new Reached('textbrowser:component', { detail: c ? encodeComponent(c) : 'null' }));
  }, { capture: true });

  listen.call(window, 'textbrowser:reach-ask', function __textBrowserReachAsk(e) {

    const question = e.question;
    if (e.isTrusted || !question) return;
    if (question.take) {
      e.answer = question.take.map((fid) => seen.get(fid) || null);
    } else if (question.look) {
      e.answer = lookup(pathAt(question.look.x, question.look.y), TYPES);
    } else if (question.at) {
      const path = [];
      for (let n = question.at; n; n = n.parentNode || n.host) path.push(n);
      if (path.length) path.push(window);
      e.answer = lookup(path, TYPES);
    }
  }, { capture: true });
})();
