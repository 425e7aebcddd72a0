// page.inspect: short names (tag#id.class) for the element (`this`), its ancestors, the document
// and the window, in the same order as ancestors.js. Returns an array of strings.
function () {
  const tb = globalThis.__textBrowser;
  const names = [];
  for (let n = this; n; n = n.parentNode || n.host) {
    names.push(n.nodeType === 9 ? 'document' : n.nodeType === 11 ? 'shadow root' : tb ? tb.describe(n).replace(/ ".*$/, '') : n.nodeName.toLowerCase());
  }
  names.push('window');
  return names;
}
