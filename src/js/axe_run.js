// axe.run: runs axe-core (already loaded into the helper world) and returns its violations.
// Arguments: include (a CSS selector or null for the whole document).
async function (include) {
  if (typeof axe === 'undefined') return { error: { kind: 'axe_unavailable', message: 'axe-core is not loaded' } };
  const context = include ? { include: [include] } : document;
  const results = await axe.run(context, { resultTypes: ['violations'] });
  const cut = (s, n) => (s && s.length > n ? s.slice(0, n) + '…' : s);
  return {
    ok: results.violations.map((v) => ({
      id: v.id,
      impact: v.impact || null,
      help: v.help,
      helpUrl: v.helpUrl,
      nodes: v.nodes.slice(0, 20).map((n) => ({ target: n.target.map(String), html: cut(n.html, 300) })),
    })),
  };
}
