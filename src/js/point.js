// What a pointer at viewport point (x, y) would hit, before `page.click` / `page.hover` act there.
// Arguments: x, y (CSS pixels from the viewport's top left). Returns {ok: {hit}} with what is there
// (tag#id.class "text", its box, whether it can be seen), {ok: {}} when nothing is, or
// {ok: {outside, axis}} when the point is outside the viewport.
function (x, y) {
  const tb = globalThis.__textBrowser;
  if (!tb.inViewport(x, y)) {
    const axis = x < 0 || x >= innerWidth ? 'x' : 'y';
    return { ok: { axis, outside: '(' + x + ', ' + y + ') is outside the viewport, which is ' + innerWidth + '×' +
      innerHeight + ' CSS pixels (x 0 to ' + (innerWidth - 1) + ', y 0 to ' + (innerHeight - 1) + ')' } };
  }
  const hit = tb.hitAt(x, y);
  if (!hit) return { ok: {} };
  tb.touch(hit);
  return { ok: { hit: tb.pointerTarget(hit) } };
}
