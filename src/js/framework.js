// The frameworks' side of what an input reaches and of who rendered an element: React (16.8 and
// later) and Vue 3, development and production builds alike, detected from what they keep on the
// DOM nodes they render — no configuration, nothing asked of the app.
//
// React delegates: it listens on its root container for every event (143 listeners in React 19)
// and calls the handlers its components put in their elements' props, which it keeps on each
// element (`__reactProps$<random>`), with the element's fiber (`__reactFiber$<random>`), whose
// `return` chain leads to the component that rendered it. Vue listens on the element itself
// through an "invoker" whose `value` is the component's handler; in development each element
// knows its component (`__vueParentComponent`), in production the app's container keeps the vnode
// tree (`_vnode`) in which the element's vnode has an owner. Components are named by the
// function's or the SFC's own name (minified in a production React build: the service maps it
// back through the bundle's source map, from where the function is).
//
// Evaluated in the page's own world (expandos are per world) before any of the page's scripts,
// inside js/reach_watch.js's block, which it hands `frameworks` to (no global). Reads only; the
// builtins it calls are taken before the page can replace them.
const frameworks = (() => {
  const keysOf = Object.keys;
  const startsWith = String.prototype.startsWith;
  const isArray = Array.isArray;
  const ownProperty = Object.getOwnPropertyDescriptor;
  const closest = Element.prototype.closest;
  const symbolsOf = Object.getOwnPropertySymbols;
  const symbolDescription = Object.getOwnPropertyDescriptor(Symbol.prototype, 'description').get;
  const source = Function.prototype.toString;
  // The `onclick` property's getter (an accessor of HTMLElement.prototype, not an own property).
  const onclickOf = ownProperty(HTMLElement.prototype, 'onclick').get;
  const MAX_FIBERS = 200; // a fiber's return chain walked at most
  const MAX_VNODES = 20000; // vnodes visited looking for an element in production Vue

  // The node's own property whose key starts with `prefix` (React's keys end with a random suffix).
  const keyWith = (node, prefix) => {
    let keys;
    try {
      keys = keysOf(node);
    } catch (e) {
      return null;
    }
    for (let i = 0; i < keys.length; i++) if (startsWith.call(keys[i], prefix)) return keys[i];
    return null;
  };
  const own = (object, key) => {
    try {
      const d = object ? ownProperty(object, key) : undefined;
      return d && 'value' in d ? d.value : undefined;
    } catch (e) {
      return undefined;
    }
  };
  const nameOf = (fn) => {
    const name = own(fn, 'displayName') || own(fn, 'name');
    return typeof name === 'string' ? name.slice(0, 80) : '';
  };

  // React's props named for each DOM event the service reports (capture: the same + 'Capture').
  // React's onChange of a text field runs on `input`, of a checkbox or radio on `click`.
  const REACT = {
    click: ['onClick'], dblclick: ['onDoubleClick'], pointerdown: ['onPointerDown'], pointerup: ['onPointerUp'],
    mousedown: ['onMouseDown'], mouseup: ['onMouseUp'], pointerover: ['onPointerOver'],
    pointerenter: ['onPointerEnter'], mouseover: ['onMouseOver', 'onMouseEnter'], mouseenter: ['onMouseEnter'],
    pointermove: ['onPointerMove'], mousemove: ['onMouseMove'], keydown: ['onKeyDown'], keypress: ['onKeyPress'],
    keyup: ['onKeyUp'], beforeinput: ['onBeforeInput'], input: ['onInput', 'onChange'], change: ['onChange'],
    submit: ['onSubmit'],
  };
  // The function a fiber's type renders with (a component, a memo's or forwardRef's inner one).
  const renderFunction = (type) => {
    if (typeof type === 'function') return type;
    if (type && typeof type === 'object') {
      if (typeof type.render === 'function') return type.render;
      if (typeof type.type === 'function') return type.type;
    }
    return null;
  };
  const reactComponent = (node) => {
    const key = keyWith(node, '__reactFiber$');
    if (!key) return null;
    let fiber = node[key];
    for (let i = 0; fiber && i < MAX_FIBERS; i++, fiber = fiber.return) {
      const fn = renderFunction(fiber.type);
      if (fn) return { fw: 'React', name: nameOf(fn), fn };
    }
    return null;
  };
  const checkable = (node) => node.localName === 'input' && (node.type === 'checkbox' || node.type === 'radio');
  // The handlers React calls for `type` on `node`: [{prop, fn, capture}].
  const reactHandlers = (node, type) => {
    const key = keyWith(node, '__reactProps$');
    const props = key ? node[key] : null;
    if (!props || typeof props !== 'object') return [];
    // On a checkbox or radio React runs onChange on `click` (listed there), never on `change`.
    if (checkable(node) && (type === 'change' || type === 'input')) return [];
    const names = type === 'click' && checkable(node) ? ['onClick', 'onChange'] : REACT[type] || [];
    const found = [];
    for (const name of names) {
      for (const capture of [false, true]) {
        const prop = capture ? name + 'Capture' : name;
        const fn = own(props, prop);
        if (typeof fn === 'function') found.push({ prop, fn, capture });
      }
    }
    return found;
  };
  // React's own listeners: its delegation on a root container, and the empty `onclick` it puts on
  // its root and on elements with an onClick (for Safari's sake).
  const reactRoot = (node) => keyWith(node, '__reactContainer$') !== null;
  const reactShim = (node, fn) => {
    if (typeof fn !== 'function' || fn.length !== 0) return false;
    let set;
    try {
      set = onclickOf.call(node);
    } catch (e) {
      return false;
    }
    return set === fn && (keyWith(node, '__reactProps$') !== null || reactRoot(node));
  };

  // Vue's invoker: a function with the handler(s) in `value` and a number in `attached`.
  const vueHandlers = (fn) => {
    if (typeof fn !== 'function' || typeof own(fn, 'attached') !== 'number') return null;
    const value = own(fn, 'value');
    if (typeof value === 'function') return [value];
    if (isArray(value)) return value.filter((v) => typeof v === 'function');
    return null;
  };
  // Vue's v-model: its directive listens on the element itself (`change` on a checkbox, radio or
  // select, `input` on a text field) with a closure of Vue's that calls the assigner it keeps on the
  // element under Symbol('_assign'): the component's `onUpdate:modelValue`, compiled from the
  // template's v-model. That assigner, when `fn` is such a closure (its code calls
  // `el[assignKey](…)`), else null.
  const vueModel = (node, fn) => {
    if (typeof fn !== 'function' || own(fn, 'attached') !== undefined) return null;
    let symbols;
    try {
      symbols = symbolsOf(node);
    } catch (e) {
      return null;
    }
    for (let i = 0; i < symbols.length; i++) {
      if (symbolDescription.call(symbols[i]) !== '_assign') continue;
      const assign = own(node, symbols[i]);
      let code = '';
      try {
        code = source.call(fn);
      } catch (e) {}
      return typeof assign === 'function' && code.length < 400 && /\[[\w$]+\]\(/.test(code) ? assign : null;
    }
    return null;
  };
  const vueName = (type) => {
    if (!type || typeof type !== 'object') return '';
    const name = own(type, '__name') || own(type, 'name');
    if (typeof name === 'string' && name) return name.slice(0, 80);
    const file = own(type, '__file');
    return typeof file === 'string' ? file.replace(/^.*\//, '').replace(/\.vue$/, '').slice(0, 80) : '';
  };
  // The component instance that rendered `el`: development builds say it on the element; in
  // production the owner of its vnode in the app's tree.
  const vueInstance = (el) => {
    const dev = own(el, '__vueParentComponent');
    if (dev) return dev;
    let container = null;
    try {
      for (let n = el; n; n = n.parentElement) if (own(n, '__vue_app__')) { container = n; break; }
    } catch (e) {
      return null;
    }
    const root = container && own(container, '_vnode');
    if (!root) return null;
    let visited = 0;
    const visit = (vnode, owner) => {
      if (!vnode || typeof vnode !== 'object' || ++visited > MAX_VNODES) return null;
      // A component's vnode shares its root element (`el`): the component rendered it, not its owner.
      if (vnode.component) return visit(vnode.component.subTree, vnode.component);
      if (vnode.el === el) return owner;
      const children = vnode.children;
      if (isArray(children)) {
        for (let i = 0; i < children.length; i++) {
          const hit = visit(children[i], owner);
          if (hit) return hit;
        }
      }
      return null;
    };
    return visit(root, null);
  };
  const vueComponent = (el) => {
    const instance = vueInstance(el);
    const name = instance ? vueName(instance.type) : '';
    return name ? { fw: 'Vue', name, fn: null } : null;
  };

  return {
    reactHandlers,
    reactRoot,
    reactShim,
    vueHandlers,
    vueModel,
    checkable,
    // The component that rendered `el`: {fw, name, fn} (fn: its function, for React), or null.
    component(el) {
      if (!el || el.nodeType !== 1) return null;
      return reactComponent(el) || vueComponent(el);
    },
    // Whether `el` is inside an app of either (to ask no more of a page without one).
    inApp(el) {
      try {
        return !!(keyWith(el, '__reactFiber$') || own(el, '__vueParentComponent') || closest.call(el, '[data-v-app]'));
      } catch (e) {
        return false;
      }
    },
  };
})();
