// page.content: the document's current (post-JavaScript) HTML, with its doctype, at most `limit`
// characters of it (UTF-16 units, as JavaScript counts) and its whole length.
// Runs in the helper world; returns {ok: {html, length}}.
function (limit) {
  const dt = document.doctype;
  let doctype = '';
  if (dt) {
    doctype = '<!DOCTYPE ' + dt.name +
      (dt.publicId ? ' PUBLIC "' + dt.publicId + '"' : '') +
      (dt.systemId ? (dt.publicId ? '' : ' SYSTEM') + ' "' + dt.systemId + '"' : '') + '>\n';
  }
  const root = document.documentElement;
  const html = doctype + (root ? root.outerHTML : '');
  return { ok: { html: html.length > limit ? html.slice(0, limit) : html, length: html.length } };
}
