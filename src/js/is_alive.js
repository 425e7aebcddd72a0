// Whether an element the service resolved (by ref) is still attached to a live document.
// Called with the element as `this`; returns a boolean.
function () {
  return this.isConnected && !!this.ownerDocument.defaultView;
}
