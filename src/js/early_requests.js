// Adopting a popup: the fetch/XHR requests its document made before the service was listening,
// from the page's own resource timing (status where the browser exposes it), at most 20.
// Returns {ok: {blank, count, requests: [{url, status}]}}: blank while the popup has not loaded a
// document yet; count includes the document and every other kind of request.
function () {
  const entries = performance.getEntriesByType('resource');
  const data = entries.filter((e) => e.initiatorType === 'fetch' || e.initiatorType === 'xmlhttprequest');
  return {
    ok: {
      blank: location.href === 'about:blank',
      count: entries.length + 1,
      requests: data.slice(0, 20).map((e) => ({ url: e.name, status: e.responseStatus || 0 })),
    },
  };
}
