// The first element a selector spec matches (see lib.js query), returned as an object handle so
// the service can name it to Chromium. Arguments: spec, then element handles for role selectors.
// Throws on an invalid selector; returns null when nothing matches.
function (spec, ...handles) {
  const { elements, error } = globalThis.__textBrowser.find(spec, handles);
  if (error) throw new Error(error.message || error.kind);
  return elements[0] || null;
}
