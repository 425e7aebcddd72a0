// page.evaluate, last step: `this` is what the user's expression produced (in the page's own world,
// a function already called with the caller's `arg`). A promise is awaited for at most `sliceMs`:
// one browser command may not wait longer than 30 s, so a longer wait is several calls of this.
// The outcome is returned as JSON text, or as a clear reason why it cannot be JSON.
// JSON longer than `maxChars` is not sent: its length is.
// Returns {json: string|undefined}, {pending: true} (still unsettled after sliceMs), {tooLarge: length}
// or {error: reason}.
async function (sliceMs, maxChars) {
  let value = this;
  if (value !== null && (typeof value === 'object' || typeof value === 'function') && typeof value.then === 'function') {
    const unsettled = {};
    value = await Promise.race([value, new Promise((resolve) => setTimeout(() => resolve(unsettled), sliceMs))]);
    if (value === unsettled) {
      return { pending: true };
    }
  }
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
  if (json !== undefined && json.length > maxChars) {
    return { tooLarge: json.length };
  }
  return { json };
}
