// page.content: the document's current (post-JavaScript) HTML, with its doctype.
// Runs in the helper world; returns {ok: html}.
function () {
  const dt = document.doctype;
  let doctype = '';
  if (dt) {
    doctype = '<!DOCTYPE ' + dt.name +
      (dt.publicId ? ' PUBLIC "' + dt.publicId + '"' : '') +
      (dt.systemId ? (dt.publicId ? '' : ' SYSTEM') + ' "' + dt.systemId + '"' : '') + '>\n';
  }
  const root = document.documentElement;
  return { ok: doctype + (root ? root.outerHTML : '') };
}
