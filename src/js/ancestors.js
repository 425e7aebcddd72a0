// page.inspect: the element (`this`), its ancestors up to the document (crossing shadow roots),
// then the document and the window: everything whose event listeners can receive its events.
// Returned as an array of objects (by reference), nearest first. Runs in the page's own world
// (listeners are only visible from the world that added them), so it uses nothing a page could
// have replaced: no methods of Array.prototype.
function () {
  const chain = [];
  for (let n = this; n; n = n.parentNode || n.host) chain[chain.length] = n;
  chain[chain.length] = window;
  return chain;
}
