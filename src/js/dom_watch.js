// The DOM watcher: what changes on the page and who changed it, for the page's timeline.
//
// Runs in the service's own isolated world of every document (Page.addScriptToEvaluateOnNewDocument
// with a worldName), so the page cannot see or break it; the world shares the page's DOM, so a
// MutationObserver here sees every change the page's scripts make. From DOMContentLoaded on (the
// parser building the document is not news), changes are coalesced per element over ~50 ms and
// reported through the binding `__textBrowserDom` (Runtime.addBinding, exposed to this world only;
// its name is fixed here and in watch/events.rs) or, when the service asks (at the end of an action,
// before a read), as the answer of its call: children added / removed / replaced with counts (one
// or two elements added or removed by name: `section#late-panel "Report"`), text before → after
// (short), and state attributes. Each change carries when it happened (ms since the Unix epoch, the
// page's clock), the user input it followed (while that input's dispatch ran), if any, and the
// causes it was made in. A state attribute a script set to the value it had is no change: it is
// reported as kept (what kept a button disabled), and so is what the session put into fields.
//
// A cause is how the service learns which script made a change: Chromium runs a MutationObserver's
// callback as an async task whose parent is the stack of the first change it reports (async stack
// traces are on for every page). A console call made inside the callback carries that parent as a
// stack trace id; the watcher makes one (`console.debug(CAUSE, id)`, at most CAUSES_PER_SECOND, and
// within an input's task only for changes to what the input went to: see `worthACause`), the
// service reads the id's stack (Debugger.getStackTrace) and files it under `id`, and the changes
// made in that task name `id` among their causes. The marker never reaches logs.pull.
//
// It also notes how the browser treated the user's clicks, submissions and Enter keys: the default
// the browser would carry out (follow a link, submit a form, nothing for a type="button"), whether
// a listener prevented it, and whether the event's propagation was stopped before the window; and
// it passes on, with its next report, the listeners each input was about to reach, which the
// page's own world lists (js/reach_watch.js, `textbrowser:reached` events), and the messages the
// window got (`textbrowser:message` events, noted there). Each change names the
// component that rendered its element, when React or Vue did (asked of the page's world, which
// alone sees what the frameworks keep on the element).
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
  const CAUSE = '__textBrowserDomCause'; // the console marker (fixed in watch/events.rs too)
  const CAUSES_PER_SECOND = 20;
  const MAX_CAUSES = 3; // causes one coalesced change names
  const MAX_EVENTS = 8; // event notes held between reports
  const MAX_REACHED = 4; // lists of reached listeners held between reports (the latest ones)
  const MAX_REACHED_CHARS = 32768; // one list's JSON at most (48 listeners fit several times)
  const MAX_MESSAGES = 20; // message notes held between reports (the page's world notes 20 a second)
  const MESSAGE_CHARS = 4096; // one message note's JSON at most (8 listeners, a 160-character outline)
  const NAMED = 2; // elements added (or removed) that a change names; more are counted
  const LABEL = 40; // characters of an added element's label
  // State a script may set to the value it already had: noted as kept (page.inspect says what kept
  // a state so), never as a change. Class and style are left out: frameworks rewrite them often.
  const KEPT = new Set(STATE.filter((name) => name !== 'class' && name !== 'style'));
  const MAX_KEPT = 8; // kept states held between reports
  const MAX_FIELDS = 8; // fields the session put values into, held between reports
  const VALUE = 200; // characters of a field's value
  const now = () => performance.timeOrigin + performance.now();
  const debug = console.debug.bind(console);
  const cut = (s) => {
    const t = String(s).replace(/\s+/g, ' ').trim();
    return t.length > TEXT ? t.slice(0, TEXT - 1) + '…' : t;
  };
  const describe = watchName;

  // The input event being dispatched: a change its handlers make (reported to the observer between
  // listeners, or at the end of the script that dispatched it) followed it. A trusted event's
  // dispatch runs each listener in a task of its own making, and the observer's callback for what a
  // listener changed runs right after that listener, while the event is still being dispatched: once
  // its phase is NONE, a change is another task's (a socket message, a timer already queued), not
  // the input's. An event a script dispatched is delivered at the end of that script, after the
  // dispatch: it counts until the task ends.
  // One timer per task forgets it (each timer costs its async stack).
  let lastInput = null;
  let ending = false;
  const endInput = () => {
    lastInput = null;
    ending = false;
  };
  const currentInput = () =>
    lastInput && (!lastInput.event.isTrusted || lastInput.event.eventPhase !== Event.NONE) ? lastInput : null;
  // Named as it begins (a handler may move or remove the element); its form looked up when a
  // change needs it.
  const noteInput = (e) => {
    lastInput = { what: e.type + ' on ' + describe(e.target), target: e.target, form: undefined, event: e };
    if (!ending) {
      ending = true;
      setTimeout(endInput, 0);
    }
  };
  for (const type of ['keydown', 'input', 'change', 'click', 'pointerdown', 'submit']) {
    addEventListener(type, noteInput, { capture: true, passive: true });
  }

  // What the session put into fields (page.fill, page.type, page.fillForm): each field's name, id
  // and label with its latest value, for the service to set against the bodies of the writes that
  // follow. Trusted input is the service's (nothing else types in its browser); a value the helpers
  // set by script (a date input) is marked by lib.js `leaveField`. Never a password's.
  let fields = new Map(); // element → {t, name, id, label, value}
  const noteField = (e) => {
    const el = e.target;
    if (!e.isTrusted && globalThis.__textBrowserFilling !== el) return;
    if (!(el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement)) return;
    if (el.type === 'password' || el.type === 'hidden' || el.type === 'file') return;
    if (!fields.has(el) && fields.size >= MAX_FIELDS) return;
    const labels = el.labels && el.labels.length ? el.labels[0].textContent : '';
    const label = labels || el.getAttribute('aria-label') || el.getAttribute('placeholder') || '';
    const value = el.type === 'checkbox' || el.type === 'radio' ? String(el.checked) : String(el.value);
    fields.set(el, { t: now(), name: el.name || '', id: el.id || '', label: cut(label), value: value.slice(0, VALUE) });
    if (!timer) timer = setTimeout(flush, WINDOW_MS);
  };
  for (const type of ['input', 'change']) addEventListener(type, noteField, { capture: true, passive: true });

  // What the browser does by default with a click, a submission or an Enter key on `target`.
  const formAction = (form) => {
    const method = (form.getAttribute('method') || 'get').toUpperCase();
    return describe(form) + ' (' + method + ' ' + (form.getAttribute('action') || 'the page itself') + ')';
  };
  const defaultOf = (e) => {
    const target = e.target instanceof Element ? e.target : null;
    if (!target) return null;
    if (e.type === 'submit') return 'submits ' + formAction(target);
    if (e.type === 'keydown') {
      if (target instanceof HTMLTextAreaElement || target.isContentEditable) return 'adds a line break';
      const form = target.form;
      if (!form) return null;
      // Implicit submission: a form with a submit button, or with a single field.
      const submits = form.querySelector('button:not([type]), button[type=submit], input[type=submit], input[type=image]');
      const fields = [...form.elements].filter((f) => f instanceof HTMLInputElement && f.type !== 'hidden');
      return submits || fields.length === 1 ? 'submits ' + formAction(form) + ' (Enter in a field)' : null;
    }
    const link = target.closest('a[href]');
    if (link) return 'follows the link to ' + link.getAttribute('href');
    const control = target.closest('button, input, label, summary, select');
    if (control instanceof HTMLButtonElement || control instanceof HTMLInputElement) {
      const type = (control.getAttribute('type') || (control instanceof HTMLButtonElement ? 'submit' : 'text')).toLowerCase();
      if (type === 'checkbox' || type === 'radio') return 'checks or unchecks ' + describe(control);
      if (type === 'button') return 'no default action (a type="' + type + '" ' + control.localName + ' submits no form)';
      if (type === 'reset') return control.form ? 'resets ' + describe(control.form) : null;
      if (type === 'submit' || type === 'image') {
        return control.form ? 'submits ' + formAction(control.form) : 'no default action (a submit button outside any form)';
      }
      return null;
    }
    if (control instanceof HTMLLabelElement && control.control) return 'activates ' + describe(control.control);
    if (control && control.localName === 'summary') return 'opens or closes its details';
    return null;
  };
  // Noted as the event begins (capture on the window, before the page's listeners); whether it
  // reached the window's bubble phase is seen there, whether a listener prevented its default read
  // when the note is reported (the dispatch is over by then).
  let events = [];
  let noting = null;
  const noteEvent = (e) => {
    if (!e.isTrusted || (e.type === 'keydown' && e.key !== 'Enter')) return;
    noting = { t: now(), type: e.type, on: describe(e.target), default: defaultOf(e), bubbled: false, event: e };
    if (events.length < MAX_EVENTS) events.push(noting);
  };
  const sawBubble = (e) => {
    if (noting && noting.event === e) noting.bubbled = true;
  };
  for (const type of ['click', 'submit', 'keydown']) {
    addEventListener(type, noteEvent, { capture: true });
    addEventListener(type, sawBubble);
  }

  // What an input was about to reach, as the page's own world listed it: JSON text, passed on as
  // it is (the service reads each list apart, so a page that sends its own cannot spoil a report).
  let reached = [];
  document.addEventListener('textbrowser:reached', (e) => {
    const list = e.detail;
    if (typeof list !== 'string' || list.length > MAX_REACHED_CHARS) return;
    if (reached.length === MAX_REACHED) reached.shift();
    reached.push(list);
  });

  // Messages the window got, as the page's own world noted them (js/reach_watch.js,
  // `textbrowser:message`): JSON text, passed on as it is and read apart, like the lists above.
  let messages = [];
  document.addEventListener('textbrowser:message', (e) => {
    const note = e.detail;
    if (typeof note !== 'string' || note.length > MESSAGE_CHARS || messages.length === MAX_MESSAGES) return;
    messages.push(note);
    if (!timer) timer = setTimeout(flush, WINDOW_MS);
  });

  // The component (React's or Vue's) that rendered a changed element, asked of the page's own world
  // (js/reach_watch.js, where the frameworks keep it): a `textbrowser:component-ask` event on the
  // element, answered at once by a `textbrowser:component` event on the document whose detail is
  // {fw, name, fid} as JSON text, or "null".
  let asking = false;
  let answer = null;
  document.addEventListener('textbrowser:component', (e) => {
    if (asking) answer = e.detail;
  });
  const componentOf = (el) => {
    if (!el.isConnected) return null;
    asking = true;
    answer = null;
    try {
      el.dispatchEvent(new CustomEvent('textbrowser:component-ask', { bubbles: true, composed: true }));
    } finally {
      asking = false;
    }
    if (typeof answer !== 'string' || answer.length > 400) return null;
    try {
      return JSON.parse(answer);
    } catch (e) {
      return null;
    }
  };

  // Causes: an id for the changes of one observer callback, its stack asked for by the console call.
  let causeSeq = 0;
  let budget = CAUSES_PER_SECOND;
  let budgetSince = 0;
  const newCause = () => {
    const t = now();
    if (t - budgetSince >= 1000) {
      budgetSince = t;
      budget = CAUSES_PER_SECOND;
    }
    if (budget === 0) return 0;
    budget--;
    return ++causeSeq;
  };

  let pending = new Map(); // element → change
  // Changes closed before their window was reported, with what they ended as: [element, change];
  // at most MAX_SEALED (past it, changes merge as within a window).
  let sealed = [];
  const MAX_SEALED = 4 * MAX_ELEMENTS;
  let timer = 0;
  // `before`: what the element was before this batch (`beforeBatch`), for a change whose window
  // passed while the page kept the thread (a long task): it ends there, and the batch starts a new
  // one, so "Ready" → "Working…" at the click and "Working…" → "Done" a second later are two
  // changes, not one "Ready" → "Done" at the click.
  const changeIn = (el, t, cause, before, input) => {
    let c = pending.get(el);
    if (c && t - c.t > WINDOW_MS && sealed.length < MAX_SEALED) {
      c.endText = before && before.text !== undefined ? before.text : null;
      c.endAttrs = before ? before.attrs : new Map();
      sealed.push([el, c]);
      c = null;
    }
    if (!c) {
      c = {
        t, added: 0, removed: 0, tags: new Set(), addedEls: [], removedEls: [], before: null, attrs: new Map(),
        input: null, causes: [],
      };
      if (input) c.input = input.what;
      pending.set(el, c);
    }
    if (cause && c.causes.length < MAX_CAUSES && !c.causes.includes(cause)) c.causes.push(cause);
    return c;
  };
  // How a change names an element added or removed: `section#late-panel "Report"` (tag, then id or
  // first class, then its label: aria-label, its first heading, or its text).
  const nameOf = (el) => {
    const cls = typeof el.className === 'string' ? el.className.trim().split(/\s+/)[0] : '';
    const tag = el.localName + (el.id ? '#' + el.id : cls ? '.' + cls : '');
    const heading = el.querySelector('h1, h2, h3, h4, h5, h6, legend, [role=heading]');
    const label = (el.getAttribute('aria-label') || (heading || el).textContent || '').replace(/\s+/g, ' ').trim();
    if (!label) return tag;
    return tag + ' ' + JSON.stringify(label.length > LABEL ? label.slice(0, LABEL - 1) + '…' : label);
  };
  const textOf = (nodes) => {
    let text = '';
    for (const n of nodes) {
      if (n.nodeType !== Node.TEXT_NODE) return null;
      text += n.data;
    }
    return text;
  };
  // Within an input's task a cause is asked for only when the changes touch what the input went to
  // (the element, what is inside it, its form): the service names the listeners the input reached
  // anyway, and a cause costs the action ~0.3 ms (the console call and its stack). Changes outside
  // an input's task (a response's render, a timer) always get one, within the budget.
  const worthACause = (records, input) => {
    const el = input && input.target instanceof Element ? input.target : null;
    if (!el) return true;
    if (input.form === undefined) input.form = el.closest('form');
    const form = input.form;
    for (const r of records) {
      const n = r.target;
      if (el.contains(n) || (form && form.contains(n))) return true;
    }
    return false;
  };
  // `fromObserver`: called as the observer's callback (an async task whose parent is the stack of
  // the first change), so a cause can be asked for; not when the service asks for a flush.
  // Per element, what it was before `records` (its first record's old text and attribute values).
  const beforeBatch = (records) => {
    const before = new Map();
    const of = (el) => {
      let b = before.get(el);
      if (!b) before.set(el, (b = { text: undefined, attrs: new Map() }));
      return b;
    };
    for (const r of records) {
      if (r.type === 'childList') {
        const b = of(r.target);
        const removed = textOf(r.removedNodes);
        if (b.text === undefined && removed !== null) b.text = r.removedNodes.length ? removed : '';
      } else if (r.type === 'characterData' && r.target.parentElement) {
        const el = r.target.parentElement;
        const b = of(el);
        if (b.text === undefined) b.text = el.textContent.replace(r.target.data, r.oldValue || '');
      } else if (r.type === 'attributes') {
        const b = of(r.target);
        if (!b.attrs.has(r.attributeName)) b.attrs.set(r.attributeName, r.oldValue);
      }
    }
    return before;
  };
  const take = (records, fromObserver) => {
    if (!records.length) return;
    const t = now();
    const input = currentInput();
    const cause = fromObserver && worthACause(records, input) ? newCause() : 0;
    let before = null; // read only when a held change's window has passed
    const changeOf = (el) => {
      const c = pending.get(el);
      if (c && t - c.t > WINDOW_MS && sealed.length < MAX_SEALED && !before) before = beforeBatch(records);
      return changeIn(el, t, cause, before && before.get(el), input);
    };
    for (const r of records) {
      if (r.type === 'childList') {
        const c = changeOf(r.target);
        for (const n of r.addedNodes) {
          if (n.nodeType === Node.ELEMENT_NODE) {
            c.added++;
            c.tags.add(n.localName);
            if (c.addedEls.length < NAMED) c.addedEls.push(n);
          }
        }
        for (const n of r.removedNodes) {
          if (n.nodeType === Node.ELEMENT_NODE) {
            c.removed++;
            if (c.removedEls.length < NAMED) c.removedEls.push(n);
          }
        }
        const removedText = textOf(r.removedNodes);
        if (c.before === null && removedText !== null && r.removedNodes.length) c.before = removedText;
        if (c.before === null && !r.removedNodes.length && textOf(r.addedNodes) !== null) c.before = '';
      } else if (r.type === 'characterData') {
        const el = r.target.parentElement;
        if (!el) continue;
        const c = changeOf(el);
        if (c.before === null) c.before = el.textContent.replace(r.target.data, r.oldValue || '');
      } else if (r.type === 'attributes') {
        const c = changeOf(r.target);
        if (!c.attrs.has(r.attributeName)) c.attrs.set(r.attributeName, r.oldValue);
      }
    }
    if (cause) debug(CAUSE, cause);
    if (!timer && pending.size) timer = setTimeout(flush, WINDOW_MS);
  };
  const observer = new MutationObserver((records) => take(records, true));

  // What is held, as the report's JSON (null: nothing to say); what it reports is let go.
  const collect = () => {
    if (timer) clearTimeout(timer);
    timer = 0;
    const batch = [...sealed, ...pending];
    pending = new Map();
    sealed = [];
    const notes = events.map(({ event, ...note }) => ({ ...note, prevented: event.defaultPrevented }));
    events = [];
    noting = null;
    const lists = reached;
    reached = [];
    const inputs = [...fields.values()];
    fields = new Map();
    const got = messages;
    messages = [];
    const out = [];
    const rest = [];
    const kept = [];
    for (const [el, c] of batch) {
      const attrs = [];
      const same = [];
      for (const [name, before] of c.attrs) {
        const after = c.endAttrs && c.endAttrs.has(name) ? c.endAttrs.get(name) : el.getAttribute(name);
        if (after !== before) attrs.push([name, before === null ? null : cut(before), after === null ? null : cut(after)]);
        else if (KEPT.has(name)) same.push([name, after === null ? null : cut(after)]);
      }
      const ended = c.endText !== undefined && c.endText !== null ? c.endText : el.textContent;
      const after = c.before === null ? null : cut(ended || '');
      const text = c.before !== null && cut(c.before) !== after ? [cut(c.before), after] : null;
      if (!c.added && !c.removed && !text && !attrs.length) {
        // Set to what it already was: nothing changed, but a script kept it so.
        if (same.length && kept.length < MAX_KEPT) {
          kept.push({ t: c.t, el: describe(el), attrs: same, input: c.input, causes: c.causes });
        }
        continue;
      }
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
        named: !c.removed && c.added <= NAMED ? c.addedEls.map(nameOf) : [],
        gone: !c.added && c.removed <= NAMED ? c.removedEls.map(nameOf) : [],
        text,
        attrs,
        input: c.input,
        causes: c.causes,
        component: componentOf(el),
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
    return out.length || notes.length || lists.length || kept.length || inputs.length || got.length
      ? JSON.stringify({ changes: out, events: notes, reached: lists, kept, fields: inputs, messages: got })
      : null;
  };
  // At the end of a window: reported through the binding.
  const flush = () => {
    const report = collect();
    const send = globalThis.__textBrowserDom;
    if (report !== null && typeof send === 'function') send(report);
  };

  // The service's look at the end of an action or before a read (lib.js `domReport`, in this same
  // world): what is held now, the changes not yet delivered to the observer included.
  Object.defineProperty(globalThis, '__textBrowserDomReport', {
    value: () => {
      take(observer.takeRecords(), false);
      return collect();
    },
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
