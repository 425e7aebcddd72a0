// How the DOM watcher names an element in its change lines: `#results`, `#checkout button.primary`
// (its id, or its tag and first class under its nearest ancestor with an id). Prepended to the DOM
// watcher (dom_watch.js) and to the helper library (lib.js), which share one isolated world (the
// helpers may load there before the watcher has: a page opened on about:blank has none yet), so
// an element the helpers hold (an action's target, what page.inspect looks at) is found again
// under the same name in the timeline's DOM changes.
function watchName(el) {
  if (!(el instanceof Element)) return el === document ? 'document' : '#text';
  if (el.id) return '#' + el.id;
  const self = tagAndClass(el);
  for (let up = el.parentElement; up; up = up.parentElement) {
    if (up.id) return '#' + up.id + ' ' + self;
  }
  return self;
}

// The names of `el` and its ancestors, nearest first, at most `max`: what watchName says of each,
// in one walk up.
function watchNames(el, max) {
  const chain = [];
  for (let n = el; n && n.nodeType === 1 && chain.length < max; n = n.parentElement) chain.push(n);
  let above = chain.length ? chain[chain.length - 1].parentElement : null;
  while (above && !above.id) above = above.parentElement;
  const names = [];
  for (let i = chain.length - 1; i >= 0; i--) {
    const n = chain[i];
    if (n.id) {
      names[i] = '#' + n.id;
      above = n;
      continue;
    }
    const self = tagAndClass(n);
    names[i] = above ? '#' + above.id + ' ' + self : self;
  }
  return names;
}

// `button.primary`: an element's tag and first class.
function tagAndClass(el) {
  const cls = typeof el.className === 'string' ? el.className.trim().split(/\s+/)[0] : '';
  return cls ? el.localName + '.' + cls : el.localName;
}
