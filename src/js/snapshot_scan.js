// page.snapshot's look at the DOM before the accessibility tree is fetched (see ax_fetch.rs).
// Runs in the helper world. It answers with a summary (by value) and keeps the elements it found
// in the helper world's `__textBrowserSnapshot`, which ax_fetch.rs reads by reference when the
// summary says there are any: a plain page costs one round trip.
//
// Arguments: runKeep (items of a long run the snapshot shows), minRun (the shortest run worth
// leaving out of the fetch), maxPointers. The whole document is scanned, even for one element's
// snapshot. Listeners added with addEventListener are invisible here: ax_fetch.rs asks the
// browser about each run's parent.
//
// Answers {"pointers": P, "runs": [count, …], "roots": S, "overflow": bool}, and keeps
// [...pointers, ...runElements, ...shadowRoots]:
// - pointers: elements showing a pointer cursor where their parent does not (what a user takes for
//   clickable), except links, buttons and fields, which are acted on by nature anyway (overflow:
//   more than maxPointers of them; none are returned then);
// - for each run, four elements: its parent, its first item, its first item past the runKeep
//   shown, and its last item; count is how many items it has. A run is a row of sibling elements
//   of one tag that the accessibility tree gives one role (li, tr, p, article, dt, dd), rendered
//   and visible, with no text between them and nothing inside any of them an agent could act on
//   (a link, a field, a tabindex, a role, an inline handler, a pointer cursor, a custom element),
//   in the main document and outside shadow trees;
// - shadowRoots: the open shadow roots it went through (their listeners are asked for one by
//   one: a listener query that pierces them hangs Chromium, see ax_fetch.rs).
function (runKeep, minRun, maxPointers) {
  const RUN_TAGS = new Set(['LI', 'TR', 'P', 'ARTICLE', 'DT', 'DD']);
  // Elements that are acted on by nature, or may hold something that is.
  const ACTIONABLE_TAGS = new Set([
    'A', 'AREA', 'BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'SUMMARY', 'DETAILS', 'IFRAME', 'FRAME',
    'EMBED', 'OBJECT', 'VIDEO', 'AUDIO', 'OPTION', 'DIALOG', 'SLOT',
  ]);
  const ACTIONABLE_ATTRIBUTES = [
    'tabindex', 'contenteditable', 'role', 'onclick', 'onmousedown', 'onmouseup', 'aria-owns', 'draggable',
  ];
  const NATURALLY_ACTIONABLE = new Set(['A', 'AREA', 'BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'SUMMARY', 'LABEL']);
  const start = document.documentElement;
  globalThis.__textBrowserSnapshot = [];
  if (!start) return { pointers: 0, runs: [], roots: 0, overflow: false };

  const style = (el) => el.ownerDocument.defaultView.getComputedStyle(el);
  const shadowRoots = [];
  // Every element under `top`, through open shadow roots and same-origin frames, parents first.
  function* elements(top) {
    const stack = [top];
    while (stack.length) {
      const el = stack.pop();
      yield el;
      const kids = [];
      if (el.shadowRoot) {
        shadowRoots.push(el.shadowRoot);
        kids.push(...el.shadowRoot.children);
      }
      if (el.tagName === 'IFRAME' || el.tagName === 'FRAME') {
        try {
          const inner = el.contentDocument && el.contentDocument.documentElement;
          if (inner) kids.push(inner);
        } catch (_) { /* another origin */ }
      }
      kids.push(...el.children);
      for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
    }
  }

  // Pointer cursors where the parent has none.
  const pointing = new Set();
  for (const el of elements(start)) {
    if (style(el).cursor !== 'pointer') continue;
    const parent = el.parentElement;
    if (!parent || style(parent).cursor !== 'pointer') pointing.add(el);
  }
  const pointers = [...pointing].filter((el) => !NATURALLY_ACTIONABLE.has(el.tagName) && !el.hasAttribute('role'));
  const overflow = pointers.length > maxPointers;

  const mayBeActedOn = (el) => ACTIONABLE_TAGS.has(el.tagName) || el.tagName.includes('-') || el.shadowRoot
    || ACTIONABLE_ATTRIBUTES.some((a) => el.hasAttribute(a)) || pointing.has(el);
  const holdsNothingToActOn = (item) => {
    if (mayBeActedOn(item)) return false;
    for (const el of item.querySelectorAll('*')) {
      if (mayBeActedOn(el)) return false;
    }
    return true;
  };

  const runs = [];
  const counts = [];
  // aria-owns moves elements in the accessibility tree: the DOM no longer says where they are.
  const owned = document.querySelector('[aria-owns]') !== null;
  const parents = owned ? [] : [start, ...start.querySelectorAll('*')].filter((el) => el.childElementCount >= minRun);
  for (const parent of parents) {
    if (parent.shadowRoot || parent.getRootNode() !== document) continue;
    let run = [];
    const close = () => {
      if (run.length >= minRun) {
        runs.push(parent, run[0], run[runKeep], run[run.length - 1]);
        counts.push(run.length);
      }
      run = [];
    };
    for (const node of parent.childNodes) {
      if (node.nodeType === Node.TEXT_NODE) {
        if (node.data.trim()) close();
        continue;
      }
      if (node.nodeType !== Node.ELEMENT_NODE) continue;
      const look = style(node);
      if (look.display === 'none') continue; // not in the accessibility tree at all
      const alike = RUN_TAGS.has(node.tagName) && look.display !== 'contents' && look.visibility === 'visible'
        && !node.hidden && !node.hasAttribute('aria-hidden') && holdsNothingToActOn(node);
      if (!alike || (run.length > 0 && node.tagName !== run[0].tagName)) close();
      if (alike) run.push(node);
    }
    close();
  }
  globalThis.__textBrowserSnapshot = [...(overflow ? [] : pointers), ...runs, ...shadowRoots];
  return { pointers: overflow ? 0 : pointers.length, runs: counts, roots: shadowRoots.length, overflow };
}
