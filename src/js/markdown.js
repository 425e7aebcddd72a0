// page.text with format 'markdown': the visible text of the first element matching the selector,
// marked up so a model sees the structure: # headings, - and 1. lists, [text](href) links,
// | tables |, ``` code blocks ```, `code`, **bold**, *italic*, > quotes, ![alt](src) images.
// It keeps what innerText shows (hidden content left out, nothing visible dropped) and reads
// open shadow roots in place, with slotted children where their slots are.
// Runs in the helper world. Arguments: spec (see lib.js query), then element handles for role
// selectors. Returns {ok: markdown} or {error: {kind, selector, message}}.
function (spec, ...handles) {
  const { elements, error } = globalThis.__textBrowser.find(spec, handles);
  if (error) return { error };
  const root = elements[0];
  if (!root) return { error: { kind: 'element_not_found', selector: spec.source } };

  // Never shown as text: metadata, scripts, embedded documents and graphics.
  const SKIP = new Set(['script', 'style', 'noscript', 'template', 'head', 'title', 'meta', 'link',
    'iframe', 'frame', 'object', 'embed', 'canvas', 'svg', 'math', 'audio', 'video', 'datalist']);

  // An output buffer that knows where lines end, so blocks get exactly the blank lines they need.
  class Out {
    constructor() { this.parts = []; this.newlines = 0; this.lead = 0; this.last = ''; }
    // Inline text: a space never starts a line or doubles another space.
    text(t) {
      if (!t) return;
      if (this.last === '' || this.last === ' ' || this.last === '\n') t = t.replace(/^ +/, '');
      this.raw(t);
    }
    // Text written as is (code, indented list lines).
    raw(t) {
      if (!t) return;
      this.parts.push(t);
      const trailing = t.length - t.replace(/\n+$/, '').length;
      this.newlines = trailing === t.length ? this.newlines + trailing : trailing;
      this.last = t[t.length - 1];
    }
    // Ends the current line: n = 1 for a line break, 2 for a blank line.
    block(n) {
      if (!this.parts.length) { this.lead = Math.max(this.lead, n); return; }
      if (this.newlines < n) this.raw('\n'.repeat(n - this.newlines));
    }
    // Another buffer's content, keeping the line breaks it asked for before its first text.
    append(other) {
      if (other.lead) this.block(other.lead);
      this.text(other.toString());
    }
    toString() { return this.parts.join(''); }
  }

  const shown = (style) => style.display !== 'none';
  // Rendered at all: not display:none anywhere up the tree, not inside a closed <details>.
  function rendered(el, style) {
    if (!shown(style)) return false;
    if (style.display === 'contents' || typeof el.checkVisibility !== 'function') return true;
    return el.checkVisibility();
  }

  function transform(t, how) {
    if (how === 'uppercase') return t.toUpperCase();
    if (how === 'lowercase') return t.toLowerCase();
    if (how === 'capitalize') return t.replace(/(^|\s)(\S)/g, (m, a, b) => a + b.toUpperCase());
    return t;
  }

  function textNode(node, out, style) {
    if (style.visibility !== 'visible') return;
    const collapse = style.whiteSpaceCollapse ||
      (/^pre|break-spaces/.test(style.whiteSpace) ? 'preserve' : 'collapse');
    let t = node.data;
    if (collapse === 'preserve' || collapse === 'break-spaces') {
      out.raw(transform(t, style.textTransform));
      return;
    }
    t = collapse === 'preserve-breaks'
      ? t.replace(/[ \t\r\f]+/g, ' ').replace(/ ?\n ?/g, '\n')
      : t.replace(/[ \t\n\r\f]+/g, ' ');
    out.text(transform(t, style.textTransform));
  }

  // The nodes an element shows: its open shadow root's, or a slot's assigned nodes, or its own.
  function shownChildren(el) {
    if (el.shadowRoot) return el.shadowRoot.childNodes;
    if (el.localName === 'slot') {
      const assigned = el.assignedNodes({ flatten: true });
      if (assigned.length) return assigned;
    }
    return el.childNodes;
  }

  function children(el, out, style) {
    for (const child of shownChildren(el)) {
      if (child.nodeType === Node.TEXT_NODE) textNode(child, out, style);
      else if (child.nodeType === Node.ELEMENT_NODE) element(child, out);
    }
  }

  // An element's content on one line (for headings, links, cells, emphasis).
  function inline(el, style) {
    const sub = new Out();
    children(el, sub, style);
    return sub.toString().replace(/\s*\n\s*/g, ' ').replace(/ {2,}/g, ' ').trim();
  }

  // An element's content as its own block of lines (for list items and quotes).
  function lines(el, style) {
    const sub = new Out();
    children(el, sub, style);
    return sub.toString().replace(/[ \t]+$/gm, '').replace(/^\n+|\n+$/g, '').split('\n');
  }

  function element(el, out) {
    const name = el.localName;
    if (SKIP.has(name)) return;
    const style = getComputedStyle(el);
    if (!rendered(el, style)) return;
    const heading = /^h([1-6])$/.exec(name);
    if (heading) return headingBlock(el, out, style, Number(heading[1]));
    switch (name) {
      case 'br': return out.raw('\n');
      case 'hr': out.block(2); out.raw('---'); return out.block(2);
      case 'ul': case 'ol': return list(el, out, style);
      case 'pre': return codeBlock(el, out);
      case 'table': return table(el, out);
      case 'a': return link(el, out, style);
      case 'img': return image(el, out, style);
      case 'input': case 'textarea': case 'select': return control(el, out, style);
      case 'blockquote': return quote(el, out, style);
      case 'code': case 'kbd': case 'samp': return wrapped(el, out, style, '`');
      case 'strong': case 'b': return wrapped(el, out, style, '**');
      case 'em': case 'i': return wrapped(el, out, style, '*');
    }
    container(el, out, style);
  }

  // Any other element: its children, on lines of their own when it is a block.
  function container(el, out, style) {
    const display = style.display;
    const inlineBox = /^(inline|ruby|contents)/.test(display);
    const cell = display === 'table-cell';
    const gap = el.localName === 'p' ? 2 : 1;
    if (cell) out.text(' ');
    else if (!inlineBox) out.block(gap);
    children(el, out, style);
    if (cell) out.text(' ');
    else if (!inlineBox) out.block(gap);
  }

  function headingBlock(el, out, style, level) {
    const text = inline(el, style);
    if (!text) return;
    out.block(2);
    out.text('#'.repeat(level) + ' ' + text);
    out.block(2);
  }

  let listDepth = 0;
  function list(el, out, style) {
    const ordered = el.localName === 'ol';
    let number = ordered ? el.start : 0;
    // A blank line around a top-level list keeps two adjacent lists apart.
    const gap = listDepth === 0 ? 2 : 1;
    out.block(gap);
    listDepth += 1;
    for (const item of el.children) {
      if (item.localName !== 'li') { element(item, out); continue; }
      const itemStyle = getComputedStyle(item);
      if (!rendered(item, itemStyle)) continue;
      if (ordered && item.hasAttribute('value')) number = item.value;
      const marker = ordered ? `${number}. ` : '- ';
      number += 1;
      const body = lines(item, itemStyle);
      out.block(1);
      out.raw(marker + body[0]);
      for (const line of body.slice(1)) out.raw('\n' + (line ? ' '.repeat(marker.length) + line : ''));
      out.block(1);
    }
    listDepth -= 1;
    out.block(gap);
  }

  function fenceFor(text) {
    const runs = text.match(/`{3,}/g) || [];
    return '`'.repeat(Math.max(3, ...runs.map((r) => r.length + 1)));
  }

  function codeBlock(el, out) {
    const code = el.innerText.replace(/\n+$/, '');
    const classes = `${el.className} ${el.querySelector('code')?.className || ''}`;
    const language = (/(?:^|\s)lang(?:uage)?-([\w+#.-]+)/.exec(classes) || [])[1] || '';
    const fence = fenceFor(code);
    out.block(2);
    out.raw(`${fence}${language}\n${code}\n${fence}`);
    out.block(2);
  }

  function table(el, out) {
    const rows = [];
    for (const row of el.rows) {
      if (!rendered(row, getComputedStyle(row))) continue;
      const cells = [];
      for (const cell of row.cells) {
        const cellStyle = getComputedStyle(cell);
        if (!rendered(cell, cellStyle)) continue;
        cells.push(inline(cell, cellStyle).replace(/\|/g, '\\|'));
        for (let i = 1; i < cell.colSpan; i++) cells.push('');
      }
      if (cells.length) rows.push(cells);
    }
    const caption = el.caption && rendered(el.caption, getComputedStyle(el.caption))
      ? inline(el.caption, getComputedStyle(el.caption)) : '';
    if (!rows.length && !caption) return;
    out.block(2);
    if (caption) { out.text(caption); out.block(2); }
    if (rows.length) {
      const width = rows.reduce((w, r) => Math.max(w, r.length), 0);
      const line = (r) => '| ' + r.concat(Array(width - r.length).fill('')).join(' | ') + ' |';
      const text = [line(rows[0]), '|' + ' --- |'.repeat(width), ...rows.slice(1).map(line)];
      out.raw(text.join('\n'));
    }
    out.block(2);
  }

  function destination(url) {
    return /[\s()<>]/.test(url) ? `<${url.replace(/[<>]/g, encodeURIComponent)}>` : url;
  }

  function link(el, out, style) {
    const text = inline(el, style);
    const href = el.hasAttribute('href') ? el.href : '';
    const label = text || (el.getAttribute('aria-label') || el.title || '').trim();
    const blockBox = !/^(inline|ruby|contents)/.test(style.display);
    if (blockBox) out.block(1);
    if (!href || /^javascript:/i.test(href) || !label) {
      out.text(text);
    } else {
      if (/^\s/.test(el.textContent)) out.text(' ');
      out.text(`[${label.replace(/([[\]])/g, '\\$1')}](${destination(href)})`);
      if (/\s$/.test(el.textContent)) out.text(' ');
    }
    if (blockBox) out.block(1);
  }

  function image(el, out, style) {
    const alt = (el.alt || '').trim();
    if (!alt || style.visibility !== 'visible') return;
    const src = el.currentSrc || el.src || '';
    out.text(/^https?:/i.test(src) ? `![${alt}](${destination(src)})` : alt);
  }

  function control(el, out, style) {
    if (style.visibility !== 'visible') return;
    const type = (el.type || '').toLowerCase();
    let text = '';
    if (el.localName === 'select') {
      text = Array.from(el.selectedOptions, (o) => o.label).join(', ');
    } else if (type === 'checkbox' || type === 'radio') {
      text = el.checked ? '[x]' : '[ ]';
    } else if (type === 'password') {
      text = '•'.repeat(el.value.length);
    } else if (type === 'image') {
      text = el.alt;
    } else {
      text = el.value;
    }
    if (text) out.text(` ${text.replace(/\s+/g, ' ')} `);
  }

  function quote(el, out, style) {
    const body = lines(el, style);
    out.block(2);
    out.raw(body.map((line) => (line ? `> ${line}` : '>')).join('\n'));
    out.block(2);
  }

  // Inline markup around an element's one-line content; block content is kept without it.
  function wrapped(el, out, style, mark) {
    const inlineBox = /^(inline|ruby|contents)/.test(style.display);
    const sub = new Out();
    children(el, sub, style);
    const content = sub.toString();
    if (!inlineBox || content.includes('\n') || !content.trim()) {
      container(el, out, style);
      return;
    }
    const text = content.trim();
    const ticks = mark === '`' ? '`'.repeat(1 + Math.max(0, ...(text.match(/`+/g) || []).map((r) => r.length))) : mark;
    const pad = ticks.length > 1 && mark === '`' ? ' ' : '';
    if (/^\s/.test(content)) out.text(' ');
    out.text(`${ticks}${pad}${text}${pad}${ticks}`);
    if (/\s$/.test(content)) out.text(' ');
  }

  if (SKIP.has(root.localName)) return { ok: '' };
  const out = new Out();
  element(root, out);
  return { ok: out.toString() };
}
