// page.evaluate, second step: `this` is the object the user's expression produced (in the page's
// own world). A function is called with the caller's `arg`; a promise is awaited; the outcome is
// returned as JSON text, or as a clear reason why it cannot be JSON.
// Returns {json: string|undefined} or {error: reason}.
async function (arg) {
  let value = this;
  if (typeof value === 'function') {
    value = value(arg);
  }
  value = await value;
  const describe = (v) => {
    if (typeof Node !== 'undefined' && v instanceof Node) {
      const name = v.nodeName ? v.nodeName.toLowerCase() : 'node';
      const id = v.id ? '#' + v.id : '';
      return 'it is a DOM node (' + name + id + '); return a property such as .textContent or .outerHTML instead';
    }
    if (typeof Window !== 'undefined' && v instanceof Window) {
      return 'it is a Window object; return one of its properties instead';
    }
    if (typeof v === 'function') {
      return 'it is a function; call it and return its result instead';
    }
    if (typeof v === 'symbol') {
      return 'it is a Symbol';
    }
    if (typeof v === 'bigint') {
      return 'it is a BigInt (' + String(v) + 'n); return it as a string or number';
    }
    if (typeof v === 'number' && !isFinite(v)) {
      return 'it is ' + String(v) + ', which JSON cannot represent';
    }
    return null;
  };
  const top = describe(value);
  if (top) {
    return { error: 'the result: ' + top };
  }
  let problem = null;
  let json;
  try {
    json = JSON.stringify(value, function (key, v) {
      if (problem === null && key !== '') {
        const why = describe(v);
        if (why && typeof v !== 'function' && typeof v !== 'symbol') {
          problem = 'the property ' + JSON.stringify(key) + ': ' + why;
        }
      }
      return v;
    });
  } catch (e) {
    return { error: String(e && e.message).indexOf('circular') >= 0
      ? 'it contains a cycle (an object that refers back to itself)'
      : String(e && e.message) };
  }
  if (problem !== null) {
    return { error: problem };
  }
  return { json };
}
